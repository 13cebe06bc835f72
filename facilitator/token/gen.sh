#!/usr/bin/env bash
# Regenerates EIP3009Token.json (compiler artifact) and token.go (Go bindings)
# from EIP3009Token.sol. Both outputs are committed, so building and testing
# need neither npm nor solc; run this (or `go generate ./facilitator/token`)
# only after editing the Solidity source.
#
# Needs: node + npm (solc-js is pinned exactly in package.json and
# package-lock.json), and go (abigen is run at the go-ethereum version that
# go.mod pins).
set -euo pipefail
cd "$(dirname "$0")"

ABIGEN_VERSION=v1.17.10

npm ci --ignore-scripts --no-audit --no-fund --silent

node - <<'JS'
const fs = require("fs");
const solc = require("solc");

const input = {
  language: "Solidity",
  sources: { "EIP3009Token.sol": { content: fs.readFileSync("EIP3009Token.sol", "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "paris",
    outputSelection: {
      "EIP3009Token.sol": {
        EIP3009Token: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "storageLayout"],
      },
    },
  },
};

const out = JSON.parse(solc.compile(JSON.stringify(input)));
let failed = false;
for (const e of out.errors || []) {
  console.error(e.formattedMessage || e.message);
  if (e.severity === "error") failed = true;
}
if (failed) process.exit(1);

const c = out.contracts["EIP3009Token.sol"].EIP3009Token;
// Strip the per-build AST ids from the storage layout so the artifact only
// changes when the layout does.
const storageLayout = {
  storage: c.storageLayout.storage.map(({ label, offset, slot, type }) => ({ label, offset, slot, type })),
  types: c.storageLayout.types,
};
const artifact = {
  contractName: "EIP3009Token",
  compiler: "solc-js " + solc.version(),
  settings: { optimizer: input.settings.optimizer, evmVersion: input.settings.evmVersion },
  abi: c.abi,
  bytecode: "0x" + c.evm.bytecode.object,
  deployedBytecode: "0x" + c.evm.deployedBytecode.object,
  storageLayout,
};
fs.writeFileSync("EIP3009Token.json", JSON.stringify(artifact, null, 2) + "\n");
fs.writeFileSync(".abi.tmp.json", JSON.stringify(c.abi));
fs.writeFileSync(".bin.tmp", c.evm.bytecode.object);
console.error("compiled with solc " + solc.version());
JS

trap 'rm -f .abi.tmp.json .bin.tmp' EXIT
go run "github.com/ethereum/go-ethereum/cmd/abigen@${ABIGEN_VERSION}" \
  --abi .abi.tmp.json --bin .bin.tmp --pkg token --type EIP3009Token --out token.go
chmod 0644 token.go
