// Harness of the interop suite: builds (or takes) our caddy binary, runs it
// with its embedded development chain on free ports, and reads balances on
// that chain. Real processes and a real EVM; nothing is mocked.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import net from "node:net";
import { createPublicClient, http, parseAbi, defineChain } from "viem";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

let built;
// caddyBin is $CADDY_BIN, or our caddy built once into a temporary directory.
export function caddyBin() {
  if (process.env.CADDY_BIN) return process.env.CADDY_BIN;
  if (!built) {
    built = join(mkdtempSync(join(tmpdir(), "x402-interop-bin-")), "caddy");
    execFileSync("go", ["build", "-o", built, "./caddy"], { cwd: repo, stdio: "inherit" });
  }
  return built;
}

// freePort asks the kernel for a free loopback port.
export function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on("error", rej);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// waitFor polls fn until it returns a truthy value.
export async function waitFor(fn, what, ms = 60000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      if (e.fatal) throw e;
      last = e;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? ": " + last.message : ""}`);
}

// startCaddy runs our caddy with a Caddyfile built by makeCaddyfile(ports)
// and returns {url, info, stop, log}. ports has http, admin, rpc; info is
// the devnet's info file when the config runs one.
export async function startCaddy(makeCaddyfile) {
  // The ports are picked free, then released for caddy to bind: another
  // listener (such as a devnet asked for any free port) may take one in
  // between. caddy then exits "address already in use", and the start is
  // tried again with fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCaddyOnce(makeCaddyfile);
    } catch (e) {
      if (attempt >= 3 || !/address already in use/.test(e.message)) throw e;
    }
  }
}

async function startCaddyOnce(makeCaddyfile) {
  const dir = mkdtempSync(join(tmpdir(), "x402-interop-"));
  const ports = { http: await freePort(), admin: await freePort(), rpc: await freePort() };
  const infoFile = join(dir, "devnet.json");
  const caddyfile = join(dir, "Caddyfile");
  writeFileSync(caddyfile, makeCaddyfile({ ...ports, infoFile }));
  const proc = spawn(caddyBin(), ["run", "--config", caddyfile, "--adapter", "caddyfile"], {
    cwd: dir,
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, X402_INTEROP_KEY: "interop-secret" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  let exited = false;
  proc.on("exit", () => (exited = true));
  const url = `http://127.0.0.1:${ports.http}`;
  try {
    await waitFor(async () => {
      if (exited) throw Object.assign(new Error("caddy exited:\n" + log), { fatal: true });
      const r = await fetch(url + "/healthcheck").catch(() => null);
      return r !== null;
    }, "caddy to listen");
  } catch (e) {
    proc.kill("SIGKILL");
    throw new Error(e.message + "\n" + log);
  }
  const info = existsSync(infoFile) ? JSON.parse(readFileSync(infoFile, "utf8")) : null;
  return {
    url,
    ports,
    info,
    dir,
    log: () => log,
    stop: async () => {
      if (exited) return;
      proc.kill("SIGTERM");
      await waitFor(() => exited, "caddy to stop", 15000).catch(() => proc.kill("SIGKILL"));
    },
    // kill is kill -9: no cleanup runs.
    kill: async () => {
      proc.kill("SIGKILL");
      await waitFor(() => exited, "caddy to die", 15000);
    },
  };
}

// devnetGlobal is the global x402 block with an embedded devnet.
export function devnetGlobal(p, extra = "") {
  return `{
	admin 127.0.0.1:${p.admin}
	x402 {
		devnet {
			listen 127.0.0.1:${p.rpc}
			block_time 200ms
			info_file ${p.infoFile}
			${extra}
		}
	}
}
`;
}

const erc20 = parseAbi(["function balanceOf(address) view returns (uint256)"]);

// chainOf describes the devnet for viem.
export function chainOf(info) {
  return defineChain({
    id: info.chainId,
    name: info.network,
    nativeCurrency: { name: "CRO", symbol: "CRO", decimals: 18 },
    rpcUrls: { default: { http: [info.rpcUrl] } },
  });
}

// balanceOf reads a token balance on the devnet.
export async function balanceOf(info, who) {
  const c = createPublicClient({ chain: chainOf(info), transport: http(info.rpcUrl) });
  return c.readContract({ address: info.token.address, abi: erc20, functionName: "balanceOf", args: [who] });
}

// newPayTo is a fresh seller address with no balance.
let sellerN = 0;
export function newPayTo() {
  sellerN++;
  const hex = (Date.now().toString(16) + sellerN.toString(16).padStart(4, "0")).padStart(40, "5");
  return "0x" + hex.slice(-40);
}

// decodeB64JSON decodes an x402 header.
export function decodeB64JSON(v) {
  return JSON.parse(Buffer.from(v, "base64").toString("utf8"));
}

// listen starts an express app on a free loopback port; returns {url, close}.
export async function listen(app) {
  const port = await freePort();
  const server = await new Promise((res) => {
    const s = app.listen(port, "127.0.0.1", () => res(s));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) };
}

// recordFacilitatorCalls wraps global fetch to remember the answers of a
// facilitator's /verify and /settle, so a case can assert that no failure
// follows a transfer.
export function recordCalls(prefix) {
  const calls = [];
  const orig = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input.url;
    const res = await orig(input, init);
    if (url.startsWith(prefix)) {
      const body = await res.clone().text();
      calls.push({ url: url.slice(prefix.length), status: res.status, body });
    }
    return res;
  };
  return { calls, restore: () => (globalThis.fetch = orig) };
}

// startDevnet runs a development chain of its own ("caddy x402 devnet"),
// for a second network beside the one Caddy embeds: opts has chainId,
// network, token (its token address) and buyers (how many, 5 unless set). Returns {info, stop}; info is the
// chain's info file (RPC URL, token, TEST-ONLY keys).
export async function startDevnet({ chainId, network, token, buyers }) {
  const dir = mkdtempSync(join(tmpdir(), "x402-interop-devnet-"));
  const out = join(dir, "devnet.json");
  const port = await freePort();
  const args = ["x402", "devnet", "--listen", `127.0.0.1:${port}`, "--block-time", "200ms", "--out", out,
    "--chain-id", String(chainId), "--network", network];
  if (token) args.push("--token", token);
  if (buyers) args.push("--buyers", String(buyers));
  const proc = spawn(caddyBin(), args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  let exited = false;
  proc.on("exit", () => (exited = true));
  try {
    await waitFor(async () => {
      if (exited) throw Object.assign(new Error("caddy x402 devnet exited:\n" + log), { fatal: true });
      if (!existsSync(out)) return false;
      const info = JSON.parse(readFileSync(out, "utf8"));
      const r = await fetch(info.rpcUrl, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) });
      return r.ok;
    }, `devnet ${network} to answer`);
  } catch (e) {
    proc.kill("SIGKILL");
    throw e;
  }
  return {
    info: JSON.parse(readFileSync(out, "utf8")),
    log: () => log,
    stop: async () => {
      if (exited) return;
      proc.kill("SIGTERM");
      await waitFor(() => exited, "devnet to stop", 15000).catch(() => proc.kill("SIGKILL"));
    },
  };
}

// networkBlock is an x402 global option's network block for a chain run
// by startDevnet, with its signer key in the environment variable env.
export function networkBlock(info, env) {
  process.env[env] = info.signer.privateKey;
  return `network ${info.network} {
			chain_id ${info.chainId}
			rpc ${info.rpcUrl}
			token ${info.token.address}
			signer_key {env.${env}}
		}`;
}

// payCLI runs "caddy x402 pay" with args; resolves {code, stdout, stderr}.
export function payCLI(args, env = {}) {
  return new Promise((res) => {
    const proc = spawn(caddyBin(), ["x402", "pay", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    proc.stdout.on("data", (d) => (stdout += d));
    proc.stderr.on("data", (d) => (stderr += d));
    proc.on("exit", (code) => res({ code, stdout, stderr }));
  });
}

let pgtestBuilt;
// startPostgres runs a throwaway PostgreSQL server (our internal/pgtest
// command: initdb in a temporary directory, a free port, one database) and
// returns {url, stop}; null when the machine has no PostgreSQL server
// binaries (initdb, postgres), so that the case can skip and say so. Under
// CI=true a missing server is an error, as in the Go tests.
export async function startPostgres() {
  if (!pgtestBuilt) {
    pgtestBuilt = join(mkdtempSync(join(tmpdir(), "x402-interop-pgtest-")), "pgtest");
    execFileSync("go", ["build", "-o", pgtestBuilt, "./internal/pgtest/cmd/pgtest"], { cwd: repo, stdio: "inherit" });
  }
  const dir = mkdtempSync(join(tmpdir(), "x402-interop-pg-"));
  const out = join(dir, "pg.url");
  const proc = spawn(pgtestBuilt, ["--db", "x402", "--out", out], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  let exited = false;
  proc.on("exit", () => (exited = true));
  try {
    await waitFor(() => {
      if (exited) throw Object.assign(new Error("pgtest exited:\n" + log), { fatal: true });
      return existsSync(out) && readFileSync(out, "utf8").trim();
    }, "PostgreSQL to start", 60000);
  } catch (e) {
    proc.kill("SIGKILL");
    // pgtest says "PostgreSQL server binaries not available" (none found,
    // or no postgres OS user to run them as root).
    if (/server binaries not available/.test(log) && process.env.CI !== "true") return null;
    throw e;
  }
  return {
    url: readFileSync(out, "utf8").trim(),
    log: () => log,
    stop: async () => {
      if (exited) return;
      proc.kill("SIGTERM");
      await waitFor(() => exited, "PostgreSQL to stop", 30000).catch(() => proc.kill("SIGKILL"));
    },
  };
}

// transactionsFrom lists the transactions that address sent in blocks
// after fromBlock (exclusive) up to the latest, in nonce order:
// {nonce, to, input, hash, status}.
export async function transactionsFrom(info, address, fromBlock) {
  const c = createPublicClient({ chain: chainOf(info), transport: http(info.rpcUrl) });
  const latest = await c.getBlockNumber();
  const txs = [];
  for (let n = fromBlock + 1n; n <= latest; n++) {
    const b = await c.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of b.transactions) {
      if (tx.from.toLowerCase() === address.toLowerCase()) txs.push(tx);
    }
  }
  txs.sort((a, b) => a.nonce - b.nonce);
  for (const tx of txs) tx.status = (await c.getTransactionReceipt({ hash: tx.hash })).status;
  return txs;
}

// nonceOf is an address's transaction count on the chain (its next nonce).
export async function nonceOf(info, address) {
  const c = createPublicClient({ chain: chainOf(info), transport: http(info.rpcUrl) });
  return c.getTransactionCount({ address, blockTag: "latest" });
}

// blockNumber is the chain's latest block.
export async function blockNumber(info) {
  const c = createPublicClient({ chain: chainOf(info), transport: http(info.rpcUrl) });
  return c.getBlockNumber();
}
