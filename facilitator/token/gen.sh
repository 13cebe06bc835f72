#!/usr/bin/env bash
# Regenerates, from the Solidity sources here:
#   - EIP3009Token.json (compiler artifact) and token.go (Go bindings) of the
#     development chain's token;
#   - contracts.json (artifacts of EIP3009TokenNoBytes, SmartWallet,
#     SmartWalletFactory, LyingWallet, Permit2, x402ExactPermit2Proxy and
#     x402UptoPermit2Proxy, Multicall3) and wallet.go, factory.go, lyingwallet.go,
#     permit2.go (their Go bindings; permit2.go holds the three Permit2
#     contracts, which share struct types);
#   - batchsettlement.json (artifacts of x402BatchSettlement,
#     ERC3009DepositCollector and Permit2DepositCollector, compiled for
#     evmVersion cancun: they use EIP-1153 transient storage) and
#     batchsettlement.go (their Go bindings), and ../batchsettlement/batch/abi.json (the ABI
#     of x402BatchSettlement, which package batch embeds);
#   - ../evm/erc6492.json: the creation code and ABI of ERC6492SigValidator
#     and ERC6492Deployer, which the facilitator runs in eth_call and in
#     contract-creation transactions (package evm embeds it).
# Every output is committed, so building and testing need neither npm nor
# solc; run this (or `go generate ./facilitator/token`) only after editing a
# Solidity source.
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

const files = ["EIP3009Token.sol", "SmartWallet.sol", "ERC6492.sol", "Permit2.sol", "X402Permit2Proxy.sol", "LyingWallet.sol", "Multicall3.sol"];
const sources = {};
for (const f of files) sources[f] = { content: fs.readFileSync(f, "utf8") };
const input = {
  language: "Solidity",
  sources,
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "paris",
    outputSelection: {
      "EIP3009Token.sol": {
        EIP3009Token: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object", "storageLayout"],
        EIP3009TokenNoBytes: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"],
      },
      "SmartWallet.sol": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
      "ERC6492.sol": { "*": ["abi", "evm.bytecode.object"] },
      "LyingWallet.sol": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
      "Permit2.sol": { Permit2: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
      "Multicall3.sol": { Multicall3: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] },
      "X402Permit2Proxy.sol": {
        x402ExactPermit2Proxy: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"],
        x402UptoPermit2Proxy: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"],
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
fs.writeFileSync(".EIP3009Token.abi.tmp", JSON.stringify(c.abi));
fs.writeFileSync(".EIP3009Token.bin.tmp", c.evm.bytecode.object);

const brief = (x, deployed) => {
  const a = { abi: x.abi, bytecode: "0x" + x.evm.bytecode.object };
  if (deployed) a.deployedBytecode = "0x" + x.evm.deployedBytecode.object;
  return a;
};
const others = {
  compiler: "solc-js " + solc.version(),
  settings: { optimizer: input.settings.optimizer, evmVersion: input.settings.evmVersion },
  contracts: {
    EIP3009TokenNoBytes: brief(out.contracts["EIP3009Token.sol"].EIP3009TokenNoBytes, true),
    SmartWallet: brief(out.contracts["SmartWallet.sol"].SmartWallet, true),
    SmartWalletFactory: brief(out.contracts["SmartWallet.sol"].SmartWalletFactory, true),
    LyingWallet: brief(out.contracts["LyingWallet.sol"].LyingWallet, true),
    Permit2: brief(out.contracts["Permit2.sol"].Permit2, true),
    x402ExactPermit2Proxy: brief(out.contracts["X402Permit2Proxy.sol"].x402ExactPermit2Proxy, true),
    x402UptoPermit2Proxy: brief(out.contracts["X402Permit2Proxy.sol"].x402UptoPermit2Proxy, true),
    Multicall3: brief(out.contracts["Multicall3.sol"].Multicall3, true),
  },
};
fs.writeFileSync("contracts.json", JSON.stringify(others, null, 2) + "\n");
for (const name of ["SmartWallet", "SmartWalletFactory", "LyingWallet"]) {
  fs.writeFileSync("." + name + ".abi.tmp", JSON.stringify(others.contracts[name].abi));
  fs.writeFileSync("." + name + ".bin.tmp", others.contracts[name].bytecode.slice(2));
}
// The Permit2 contracts go into one bindings file through abigen's
// combined-json input, so their shared struct types are declared once.
const combined = { version: solc.version(), contracts: {} };
for (const name of ["Permit2", "x402ExactPermit2Proxy", "x402UptoPermit2Proxy"]) {
  const c = others.contracts[name];
  combined.contracts[name + ".sol:" + name] = { abi: c.abi, bin: c.bytecode.slice(2) };
}
fs.writeFileSync(".Permit2.combined.tmp", JSON.stringify(combined));
const sig = {
  compiler: "solc-js " + solc.version(),
  settings: { optimizer: input.settings.optimizer, evmVersion: input.settings.evmVersion },
  contracts: {
    ERC6492SigValidator: brief(out.contracts["ERC6492.sol"].ERC6492SigValidator, false),
    ERC6492Deployer: brief(out.contracts["ERC6492.sol"].ERC6492Deployer, false),
  },
};
fs.writeFileSync("../evm/erc6492.json", JSON.stringify(sig, null, 2) + "\n");

// The batch-settlement contracts use EIP-1153 transient storage (TSTORE,
// TLOAD), so they are compiled apart, for cancun.
const batchInput = {
  language: "Solidity",
  sources: { "Permit2.sol": sources["Permit2.sol"], "BatchSettlement.sol": { content: fs.readFileSync("BatchSettlement.sol", "utf8") } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: "cancun",
    outputSelection: {
      "BatchSettlement.sol": {
        x402BatchSettlement: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"],
        ERC3009DepositCollector: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"],
        Permit2DepositCollector: ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"],
      },
    },
  },
};
const batchOut = JSON.parse(solc.compile(JSON.stringify(batchInput)));
for (const e of batchOut.errors || []) {
  if (e.severity === "error") {
    console.error(e.formattedMessage || e.message);
    failed = true;
  }
}
if (failed) process.exit(1);
const batchNames = ["x402BatchSettlement", "ERC3009DepositCollector", "Permit2DepositCollector"];
const batch = {
  compiler: "solc-js " + solc.version(),
  settings: { optimizer: batchInput.settings.optimizer, evmVersion: batchInput.settings.evmVersion },
  contracts: {},
};
const batchCombined = { version: solc.version(), contracts: {} };
for (const name of batchNames) {
  const c = batchOut.contracts["BatchSettlement.sol"][name];
  batch.contracts[name] = brief(c, true);
  batchCombined.contracts["BatchSettlement.sol:" + name] = { abi: c.abi, bin: c.evm.bytecode.object };
}
fs.writeFileSync("batchsettlement.json", JSON.stringify(batch, null, 2) + "\n");
fs.writeFileSync(".BatchSettlement.combined.tmp", JSON.stringify(batchCombined));
fs.writeFileSync("../batchsettlement/batch/abi.json", JSON.stringify(batch.contracts.x402BatchSettlement.abi, null, 2) + "\n");
console.error("compiled with solc " + solc.version());
JS

trap 'rm -f .*.abi.tmp .*.bin.tmp .*.combined.tmp' EXIT
abigen() {
  go run "github.com/ethereum/go-ethereum/cmd/abigen@${ABIGEN_VERSION}" \
    --abi ".$1.abi.tmp" --bin ".$1.bin.tmp" --pkg token --type "$1" --out "$2"
  chmod 0644 "$2"
}
abigen EIP3009Token token.go
abigen SmartWallet wallet.go
abigen SmartWalletFactory factory.go
abigen LyingWallet lyingwallet.go
go run "github.com/ethereum/go-ethereum/cmd/abigen@${ABIGEN_VERSION}" \
  --combined-json .Permit2.combined.tmp --pkg token --out permit2.go
chmod 0644 permit2.go
go run "github.com/ethereum/go-ethereum/cmd/abigen@${ABIGEN_VERSION}" \
  --combined-json .BatchSettlement.combined.tmp --pkg token --out batchsettlement.go
chmod 0644 batchsettlement.go ../batchsettlement/batch/abi.json
chmod 0644 ../evm/erc6492.json
