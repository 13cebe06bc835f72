// Browser test of the x402 payment page: a real headless Chromium opens a
// paid URL on our Caddy (built from this checkout) in front of the devnet,
// with an injected EIP-1193 wallet whose signatures are made for real by
// ethers from a devnet buyer key, and pays.
//
//   cd e2e/browser && npm ci && npm test
//
// Needs Go (to build ./caddy unless CADDY_BIN names a binary) and Chromium
// (/usr/bin/chromium, or CHROMIUM_BIN; ./install-chromium.sh installs
// Debian's). Screenshots go to artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { ethers } from 'ethers';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const artifacts = path.join(here, 'artifacts');
const chromium = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

const SELLER = '0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e';
const PRICE_UNITS = 10000n; // price 0.01 with 6 decimals
const EXPLORER = 'https://explorer.example.test/testnet';
const START_CHAIN = 1; // the wallet starts on another chain, so the page must switch
// The metered routes (scheme upto, 0.000002 a token, at most 0.01) answer
// these usages: charges of 642 and 200 smallest units.
const METERED_TOKENS = 321;
const SPONSORED_TOKENS = 100;
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
// The key that signs the offers and receipts of the routes with
// offer_receipt (TEST-ONLY), and its id in the site's did:web document.
const RECEIPT_KEY = '0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318';
const RECEIPT_FRAGMENT = 'receipt-' + new ethers.Wallet(RECEIPT_KEY).address.slice(2, 18).toLowerCase();
const UPTO_PROXY = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';
const EXACT_PROXY = '0x402085c248EeA27D92E8b30b2C58ed07f9E20001';

// Paid HTML with its own style sheet, style attributes (one of them must
// outrank a more specific rule of the sheet, as inline styles do) and a
// script that would show whether it ran.
const STYLED_HTML = '<!DOCTYPE html><html lang="en"><head><title>Report</title><style>' +
  'body { margin: 0; padding: 16px 20px; background: rgb(255, 244, 204); font-family: "DejaVu Serif", serif; }' +
  'h1 { color: rgb(170, 20, 40); border-bottom: 4px solid rgb(170, 20, 40); margin: 0 0 12px; }' +
  '.card { background: rgb(20, 60, 140); color: rgb(255, 255, 255); padding: 10px 16px; border-radius: 8px; }' +
  '.card .note { color: rgb(190, 190, 190); }' +
  '</style></head><body><h1>Quarterly report</h1>' +
  '<div class="card"><p>Paid in {http.x402.tx_hash}</p>' +
  '<p class="note" style="color: rgb(255, 210, 0); font-weight: 700">An inline style outranks .card .note</p></div>' +
  '<p id="ran" style="font-size: 20px">the script did not run</p>' +
  '<p><a id="web" href="/report?part=2">Part two</a> <a id="away" href="https://example.test/&#x61;bout" target="_self">About</a> <a id="top" href="#ran">Top</a></p>' +
  '<script>document.getElementById("ran").textContent = "the script ran"; document.body.style.background = "red"; parent.document.title = "pwned";</script>' +
  '</body></html>';

let tmp, caddy, caddyLog = '', info, site, rpc, token, browser;
// The upstream of /afterslow/*: it holds each request until the test
// releases it (slow.release), so that the buyer can change its mind on
// chain while the answer is held; slow.arrived resolves when one came.
let slowServer;
const slow = { release: () => {} };
slow.arrived = new Promise((resolve) => { slow.arrive = resolve; });
// The second network of the two-network route: a devnet of its own run as
// base-sepolia (chain 84532) with its own token address.
const BASE_TOKEN = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
let baseChain, baseInfo, baseRpc, baseToken;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(what, fn, timeoutMs = 60000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? ': ' + last.message : ''}\ncaddy log:\n${caddyLog.slice(-4000)}`);
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'x402-browser-'));
  fs.mkdirSync(artifacts, { recursive: true });
  let bin = process.env.CADDY_BIN;
  if (!bin) {
    bin = path.join(tmp, 'caddy');
    execFileSync('go', ['build', '-o', bin, './caddy'], { cwd: repo, stdio: 'inherit' });
  }
  const [sitePort, chainPort, basePort] = [await freePort(), await freePort(), await freePort()];
  const held = new Promise((resolve) => { slow.release = resolve; });
  slowServer = http.createServer(async (req, res) => {
    slow.arrive(req.url);
    await held;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(`{"answer":"45","usage":{"total_tokens":${METERED_TOKENS}}}`);
  });
  await new Promise((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
  const slowPort = slowServer.address().port;
  site = `http://127.0.0.1:${sitePort}`;
  const infoFile = path.join(tmp, 'devnet.json');
  const baseInfoFile = path.join(tmp, 'base-devnet.json');
  baseChain = spawn(bin, ['x402', 'devnet', '--listen', `127.0.0.1:${basePort}`, '--block-time', '200ms', '--out', baseInfoFile,
    '--chain-id', '84532', '--network', 'base-sepolia', '--token', BASE_TOKEN], { cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
  baseChain.stdout.on('data', (b) => { caddyLog += b; });
  baseChain.stderr.on('data', (b) => { caddyLog += b; });
  baseInfo = await waitFor('the second devnet', () => fs.existsSync(baseInfoFile) && JSON.parse(fs.readFileSync(baseInfoFile, 'utf8')));
  const caddyfile = `{
	admin off
	persist_config off
	x402 {
		receipt_key {env.X402_BROWSER_RECEIPT_KEY}
		devnet {
			listen 127.0.0.1:${chainPort}
			block_time 200ms
			info_file ${infoFile}
		}
		network cronos-testnet {
			explorer ${EXPLORER}
		}
		network base-sepolia {
			chain_id 84532
			rpc ${baseInfo.rpcUrl}
			token ${BASE_TOKEN}
			signer_key {env.X402_BROWSER_BASE_SIGNER}
		}
	}
}
http://127.0.0.1:${sitePort} {
	x402 /api/* {
		pay_to ${SELLER}
		price 0.01
		description "Weather API, one call"
		mime_type application/json
		offer_receipt jws
	}
	handle /api/* {
		header Content-Type application/json
		respond \`{"city":"Singapore","forecast":"thunderstorms","temperature_c":31,"paid":{"tx_hash":"{http.x402.tx_hash}","from":"{http.x402.from}"}}\`
	}
	x402 /article {
		pay_to ${SELLER}
		price 0.01
		description "Premium article"
		mime_type text/html
	}
	handle /article {
		header Content-Type "text/html; charset=utf-8"
		respond \`<h1>The paid article</h1><p id="body">Thank you for paying in {http.x402.tx_hash}.</p><script>parent.document.title = "pwned"; document.body.setAttribute("data-ran", "yes");</script>\`
	}
	x402 /multi {
		pay_to ${SELLER}
		price 0.01
		network cronos-testnet base-sepolia
		description "Two networks"
		mime_type application/json
	}
	handle /multi {
		header Content-Type application/json
		respond \`{"paid":{"tx_hash":"{http.x402.tx_hash}","network":"{http.x402.network}"}}\`
	}
	x402 /report {
		pay_to ${SELLER}
		price 0.01
		description "Styled report"
		mime_type text/html
	}
	handle /report {
		header Content-Type "text/html; charset=utf-8"
		respond \`${STYLED_HTML}\`
	}
	x402 /daily/* {
		pay_to ${SELLER}
		price 0.01
		description "Daily pass"
		mime_type application/json
		access 1h
	}
	handle /daily/* {
		header Content-Type application/json
		respond \`{"edition":"{path}","from":"{http.x402.from}","until":"{http.x402.access_until}","via":"{http.x402.access_via}","tx":"{http.x402.tx_hash}"}\`
	}
	x402 /metered/* {
		pay_to ${SELLER}
		price 0.01
		description "Metered answer"
		mime_type application/json
		scheme upto
		meter json usage.total_tokens 0.000002
		offer_receipt eip712
	}
	handle /metered/* {
		header Content-Type application/json
		respond \`{"answer":"42","usage":{"total_tokens":${METERED_TOKENS}}}\`
	}
	x402 /after/* {
		pay_to ${SELLER}
		price 0.01
		description "Metered answer, settled after it"
		mime_type application/json
		scheme upto
		meter json usage.total_tokens 0.000002
		settle after
		offer_receipt eip712
	}
	handle /after/* {
		header Content-Type application/json
		respond \`{"answer":"44","usage":{"total_tokens":${METERED_TOKENS}}}\`
	}
	x402 /afterslow/* {
		pay_to ${SELLER}
		price 0.01
		description "Metered answer, settled after it, from a slow upstream"
		mime_type application/json
		scheme upto
		meter json usage.total_tokens 0.000002
		settle after
		offer_receipt eip712
	}
	handle /afterslow/* {
		reverse_proxy 127.0.0.1:${slowPort}
	}
	x402 /unused/* {
		pay_to ${SELLER}
		price 0.01
		description "Metered answer that used nothing"
		mime_type application/json
		scheme upto
		meter json usage.total_tokens 0.000002
	}
	handle /unused/* {
		header Content-Type application/json
		respond \`{"answer":"cached","usage":{"total_tokens":0}}\`
	}
	x402 /sponsored/* {
		pay_to ${SELLER}
		price 0.01
		description "Metered answer, approval sponsored"
		mime_type application/json
		scheme upto
		meter json usage.total_tokens 0.000002
		gas_sponsoring eip2612
	}
	handle /sponsored/* {
		header Content-Type application/json
		respond \`{"answer":"43","usage":{"total_tokens":${SPONSORED_TOKENS}}}\`
	}
	x402 /permit2/* {
		pay_to ${SELLER}
		price 0.01
		description "Any ERC-20 through Permit2"
		mime_type application/json
		asset_transfer permit2
	}
	handle /permit2/* {
		header Content-Type application/json
		respond \`{"paid":{"tx_hash":"{http.x402.tx_hash}"}}\`
	}
	x402 /weekly/* {
		pay_to ${SELLER}
		price 0.01
		description "Weekly pass"
		mime_type application/json
		access 1h
	}
	handle /weekly/* {
		header Content-Type application/json
		respond \`{"edition":"weekly"}\`
	}
}
`;
  fs.writeFileSync(path.join(tmp, 'Caddyfile'), caddyfile);
  caddy = spawn(bin, ['run', '--config', path.join(tmp, 'Caddyfile'), '--adapter', 'caddyfile'], {
    cwd: tmp,
    env: { ...process.env, HOME: tmp, XDG_DATA_HOME: tmp, XDG_CONFIG_HOME: tmp, X402_BROWSER_BASE_SIGNER: baseInfo.signer.privateKey, X402_BROWSER_RECEIPT_KEY: RECEIPT_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  caddy.stdout.on('data', (b) => { caddyLog += b; });
  caddy.stderr.on('data', (b) => { caddyLog += b; });
  info = await waitFor('the devnet info file', () => fs.existsSync(infoFile) && JSON.parse(fs.readFileSync(infoFile, 'utf8')));
  await waitFor('Caddy', async () => (await fetch(site + '/api/weather')).status === 402);
  rpc = new ethers.JsonRpcProvider(info.rpcUrl, info.chainId, { staticNetwork: true });
  token = new ethers.Contract(info.token.address, ['function balanceOf(address) view returns (uint256)'], rpc);
  baseRpc = new ethers.JsonRpcProvider(baseInfo.rpcUrl, baseInfo.chainId, { staticNetwork: true });
  baseToken = new ethers.Contract(BASE_TOKEN, ['function balanceOf(address) view returns (uint256)'], baseRpc);

  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: path.join(tmp, 'chromium-profile'),
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
});

after(async () => {
  if (browser) await browser.close().catch(() => {});
  if (slowServer) {
    slow.release();
    slowServer.closeAllConnections();
    slowServer.close();
  }
  if (caddy && caddy.exitCode === null) {
    caddy.kill('SIGTERM');
    await new Promise((r) => { const t = setTimeout(() => { caddy.kill('SIGKILL'); r(); }, 10000); caddy.on('exit', () => { clearTimeout(t); r(); }); });
  }
  if (rpc) rpc.destroy();
  if (baseRpc) baseRpc.destroy();
  if (baseChain && baseChain.exitCode === null) {
    baseChain.kill('SIGTERM');
    await new Promise((r) => { const t = setTimeout(() => { baseChain.kill('SIGKILL'); r(); }, 10000); baseChain.on('exit', () => { clearTimeout(t); r(); }); });
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// wallet is the Node side of the injected EIP-1193 provider: an ethers
// Wallet on the devnet. opts.reject names methods the "user" refuses
// (EIP-1193 error 4001), opts.rejectOnce those refused the first time.
function wallet(key, opts = {}) {
  const w = new ethers.Wallet(key);
  const state = { chainId: START_CHAIN, known: new Set([START_CHAIN, ...(opts.known || [])]), calls: [], typedData: null, typed: [], sent: [], rejected: new Set() };
  const fail = (code, message) => ({ error: { code, message } });
  async function handle(method, params) {
    state.calls.push(method);
    if ((opts.reject || []).includes(method)) return fail(4001, 'User rejected the request.');
    if ((opts.rejectOnce || []).includes(method) && !state.rejected.has(method)) {
      state.rejected.add(method);
      return fail(4001, 'User rejected the request.');
    }
    switch (method) {
      case 'eth_requestAccounts':
      case 'eth_accounts':
        return { result: [w.address] };
      case 'eth_chainId':
        return { result: '0x' + state.chainId.toString(16) };
      case 'wallet_switchEthereumChain': {
        const id = Number(BigInt(params[0].chainId));
        if (!state.known.has(id)) return fail(4902, `Unrecognized chain ID ${params[0].chainId}. Try adding the chain using wallet_addEthereumChain first.`);
        state.chainId = id;
        return { result: null };
      }
      case 'wallet_addEthereumChain': {
        const p = params[0];
        assert.deepEqual(p.rpcUrls, opts.rpcUrls || [info.rpcUrl], 'the page offers the public (or devnet) RPC to the wallet, never a configured one');
        state.known.add(Number(BigInt(p.chainId)));
        state.added = p;
        return { result: null };
      }
      case 'eth_call':
        if (baseInfo && state.chainId === baseInfo.chainId) return { result: await baseRpc.send('eth_call', params) };
        if (state.chainId !== info.chainId) return fail(-32000, 'wallet is on another chain');
        // opts.staleBalance stands in for funds spent elsewhere between
        // the page's balance check and the settlement.
        if (opts.staleBalance) return { result: ethers.toBeHex(opts.staleBalance, 32) };
        return { result: await rpc.send('eth_call', params) };
      case 'eth_signTypedData_v4': {
        assert.equal(params[0].toLowerCase(), w.address.toLowerCase());
        const td = JSON.parse(params[1]);
        state.typedData = td;
        state.typed.push(td);
        const types = { ...td.types };
        delete types.EIP712Domain;
        return { result: await w.signTypedData(td.domain, types, td.message) };
      }
      case 'eth_sendTransaction': {
        // The wallet sends the transaction as it was asked, from its
        // account on the devnet (it pays the gas).
        const p = params[0];
        assert.equal(p.from.toLowerCase(), w.address.toLowerCase());
        if (state.chainId !== info.chainId) return fail(-32000, 'wallet is on another chain');
        const tx = await w.connect(rpc).sendTransaction({ to: p.to, data: p.data });
        state.sent.push({ to: p.to, data: p.data, hash: tx.hash });
        return { result: tx.hash };
      }
      case 'eth_getTransactionReceipt':
        return { result: await rpc.send('eth_getTransactionReceipt', params) };
      default:
        return fail(4200, `unsupported method ${method}`);
    }
  }
  return { address: w.address, state, handle };
}

// openPage opens the paid URL in a fresh browser context, with the wallet
// injected as window.ethereum (none when w is null) and the wallets of
// announced ({w, name, rdns, icon}) announcing themselves by EIP-6963, as
// browser extensions do: once when the document starts and again at each
// eip6963:requestProvider. It records the document's response, every
// request, every PAYMENT-SIGNATURE the page sends and every console message.
async function openPage(w, urlPath = '/api/weather', announced = []) {
  const ctx = await browser.createBrowserContext();
  const page = await ctx.newPage();
  await page.setViewport({ width: 900, height: 1000 });
  const seen = { requests: [], signatures: [], console: [], errors: [] };
  page.on('request', (r) => {
    seen.requests.push(r.url());
    const sig = r.headers()['payment-signature'];
    if (sig) seen.signatures.push(sig);
  });
  page.on('console', (m) => seen.console.push(m.text()));
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  const expose = (fn, wal) => page.exposeFunction(fn, (method, params) => wal.handle(method, JSON.parse(params)));
  if (w) await expose('__x402Wallet', w);
  const list = [];
  for (const [i, a] of announced.entries()) {
    const fn = `__x402Wallet6963_${i}`;
    await expose(fn, a.w);
    list.push({ fn, uuid: crypto.randomUUID(), name: a.name, rdns: a.rdns, icon: a.icon });
  }
  await page.evaluateOnNewDocument((injectEthereum, list) => {
    const provider = (fn, extra) => ({
      ...extra,
      async request({ method, params }) {
        const r = await window[fn](method, JSON.stringify(params === undefined ? [] : params));
        if (r.error) {
          const e = new Error(r.error.message);
          e.code = r.error.code;
          throw e;
        }
        return r.result;
      },
      on() {},
      removeListener() {},
    });
    if (injectEthereum) window.ethereum = provider('__x402Wallet', { isTestWallet: true });
    for (const a of list) {
      const detail = Object.freeze({ info: Object.freeze({ uuid: a.uuid, name: a.name, icon: a.icon, rdns: a.rdns }), provider: provider(a.fn) });
      const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
      window.addEventListener('eip6963:requestProvider', announce);
      announce();
    }
  }, !!w, list);
  const res = await page.goto(site + urlPath, { waitUntil: 'load' });
  return { ctx, page, res, seen };
}

// icon is an EIP-6963 wallet icon: a 96x96 SVG as a data: URI.
function icon(fill, mark) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="22" fill="${fill}"/>${mark}</svg>`;
  return 'data:image/svg+xml;base64,' + Buffer.from(svg).toString('base64');
}
const ORANGE = { name: 'Orange Wallet', rdns: 'test.example.orange', icon: icon('#f6851b', '<circle cx="48" cy="48" r="24" fill="#fff"/>') };
const BLUE = { name: 'Blue Wallet', rdns: 'test.example.blue', icon: icon('#1f5eff', '<rect x="24" y="24" width="48" height="48" rx="8" fill="#fff"/>') };

async function payAndWait(page) {
  await page.click('#x402-pay');
  return waitForOutcome(page);
}

// waitForOutcome waits until the page has told how the payment ended
// (a pending settlement is not an end: the page retries).
async function waitForOutcome(page) {
  await page.waitForFunction(() => {
    const s = document.getElementById('x402-status');
    const k = s && s.getAttribute('data-kind');
    const title = s && s.querySelector('strong') ? s.querySelector('strong').textContent : '';
    return k === 'ok' || k === 'error' || (k === 'warn' && title !== 'Settlement pending' && title !== 'Your payment is being served');
  }, { timeout: 60000 });
  return page.evaluate(() => {
    const s = document.getElementById('x402-status');
    return {
      kind: s.getAttribute('data-kind'),
      title: s.querySelector('strong') ? s.querySelector('strong').textContent : '',
      text: s.textContent,
      failedStep: (document.querySelector('#x402-steps li.failed') || {}).textContent || '',
    };
  });
}

async function balances(buyer) {
  return { buyer: await token.balanceOf(buyer), seller: await token.balanceOf(SELLER) };
}

function assertNoCSPViolations(seen) {
  const violations = seen.console.filter((m) => /Content Security Policy/i.test(m));
  assert.deepEqual(violations, [], 'the page runs under its CSP without violations');
  assert.deepEqual(seen.errors, [], 'no script errors');
  const foreign = seen.requests.filter((u) => !u.startsWith(site + '/') && !u.startsWith('blob:') && !u.startsWith('data:'));
  assert.deepEqual(foreign, [], 'the page loads nothing from elsewhere');
}

test('a browser pays from its wallet and gets the content and the transaction', async () => {
  const buyer = info.buyers[0];
  const w = wallet(buyer.privateKey);
  const before = await balances(w.address);
  const { ctx, page, res, seen } = await openPage(w);
  try {
    assert.equal(res.status(), 402);
    assert.match(res.headers()['content-type'], /^text\/html/);
    const csp = res.headers()['content-security-policy'];
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9_-]+'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    // The x402 v2 header stays on the page's 402 for clients that read it.
    const v2 = JSON.parse(Buffer.from(res.headers()['payment-required'], 'base64').toString());
    assert.equal(v2.x402Version, 2);
    assert.equal(v2.accepts[0].network, `eip155:${info.chainId}`);
    assert.equal(await page.$eval('h1', (e) => e.textContent), 'Weather API, one call');
    assert.equal(await page.$eval('#x402-price', (e) => e.textContent), '0.01');
    const facts = await page.$eval('.card', (e) => e.innerText);
    for (const want of ['10000 smallest units', 'devUSDC.e', 'cronos-testnet', 'chain ID 338', SELLER, info.token.address]) {
      assert.ok(facts.toLowerCase().includes(want.toLowerCase()), `the page shows ${want}`);
    }
    await page.screenshot({ path: path.join(artifacts, '1-before-paying.png'), fullPage: true });

    const status = await payAndWait(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    await page.screenshot({ path: path.join(artifacts, '2-after-paying.png'), fullPage: true });

    // The wallet was switched from chain 1 (adding the devnet chain), read
    // the balance and signed the EIP-3009 authorization.
    assert.deepEqual(w.state.calls.filter((m) => m !== 'eth_chainId'),
      ['eth_requestAccounts', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'wallet_switchEthereumChain', 'eth_call', 'eth_signTypedData_v4']);
    assert.equal(w.state.chainId, info.chainId);
    const td = w.state.typedData;
    assert.equal(td.primaryType, 'TransferWithAuthorization');
    assert.deepEqual(td.domain, { name: info.token.name, version: info.token.version, chainId: info.chainId, verifyingContract: ethers.getAddress(info.token.address) });
    assert.equal(td.message.value, String(PRICE_UNITS));
    assert.equal(td.message.to.toLowerCase(), SELLER);
    assert.match(td.message.nonce, /^0x[0-9a-f]{64}$/);
    const now = Math.floor(Date.now() / 1000);
    assert.ok(Number(td.message.validAfter) < now && Number(td.message.validBefore) > now + 60, 'validity window around now');

    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    assert.match(tx, /^0x[0-9a-f]{64}$/);
    assert.equal(await page.$eval('#x402-receipt-title', (e) => e.textContent), 'Paid');
    assert.match(await page.$eval('#x402-block', (e) => e.textContent), /^[1-9][0-9]*$/);
    const link = await page.$eval('#x402-tx-link', (e) => ({ href: e.getAttribute('href'), hidden: e.hidden }));
    assert.deepEqual(link, { href: `${EXPLORER}/tx/${tx}`, hidden: false });
    // The seller's signed receipt (offer_receipt jws): its signer, the
    // charge it states, a link to save it.
    assert.equal(await page.$eval('#x402-signed', (e) => e.hidden), false);
    assert.equal(await page.$eval('#x402-signer', (e) => e.textContent), `did:web:127.0.0.1%3A${new URL(site).port}#${RECEIPT_FRAGMENT}`);
    assert.equal(await page.$eval('#x402-signed-charge', (e) => e.textContent), 'Charged 0.01 devUSDC.e (10000 smallest units).');
    assert.match(await page.$eval('#x402-receipt-save', (e) => (e.hidden ? 'hidden ' : '') + e.getAttribute('href')), /^blob:/);
    const content = JSON.parse(await page.$eval('#x402-content', (e) => e.textContent));
    assert.equal(content.city, 'Singapore');
    assert.equal(content.paid.tx_hash, tx, 'the content is the one paid by this transaction');

    const receipt = await rpc.getTransactionReceipt(tx);
    assert.equal(receipt.status, 1);
    const afterPay = await balances(w.address);
    assert.equal(before.buyer - afterPay.buyer, PRICE_UNITS, 'the buyer paid exactly the price');
    assert.equal(afterPay.seller - before.seller, PRICE_UNITS, 'the seller got exactly the price');
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('a route of two networks: the person chooses the second, the wallet signs for its chain and token, and it settles there', async () => {
  const w = wallet(info.buyers[1].privateKey, { known: [baseInfo.chainId] });
  const before = { cronos: await token.balanceOf(SELLER), base: await baseToken.balanceOf(SELLER), buyer: await baseToken.balanceOf(w.address) };
  const { ctx, page, res, seen } = await openPage(w, '/multi');
  try {
    assert.equal(res.status(), 402);
    const v2 = JSON.parse(Buffer.from(res.headers()['payment-required'], 'base64').toString());
    assert.deepEqual(v2.accepts.map((a) => a.network), ['eip155:338', 'eip155:84532']);
    const choices = await page.$$eval('#x402-network option', (os) => os.map((o) => [o.value, o.textContent.trim()]));
    assert.deepEqual(choices, [['0', 'cronos-testnet · 0.01 devUSDC.e'], ['1', 'base-sepolia · 0.01 tokens']]);
    assert.equal(await page.$eval('#x402-network-name', (e) => e.textContent), 'cronos-testnet');
    await page.select('#x402-network', '1');
    assert.equal(await page.$eval('#x402-network-name', (e) => e.textContent), 'base-sepolia');
    assert.equal((await page.$eval('#x402-asset', (e) => e.textContent)).toLowerCase(), BASE_TOKEN.toLowerCase());
    assert.match(await page.$eval('#x402-chain', (e) => e.textContent), /chain ID 84532/);
    assert.equal(await page.$eval('#x402-pay', (e) => e.textContent), 'Pay 0.01 tokens with your wallet');
    await page.screenshot({ path: path.join(artifacts, '12-two-networks.png'), fullPage: true });

    const status = await payAndWait(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    assert.equal(w.state.chainId, baseInfo.chainId, 'the wallet was switched to the chosen chain');
    assert.deepEqual(w.state.typedData.domain, { name: baseInfo.token.name, version: baseInfo.token.version, chainId: 84532, verifyingContract: ethers.getAddress(BASE_TOKEN) });
    const content = JSON.parse(await page.$eval('#x402-content', (e) => e.textContent));
    assert.equal(content.paid.network, 'base-sepolia');
    const receipt = await baseRpc.getTransactionReceipt(content.paid.tx_hash);
    assert.equal(receipt.status, 1);
    const after = { cronos: await token.balanceOf(SELLER), base: await baseToken.balanceOf(SELLER), buyer: await baseToken.balanceOf(w.address) };
    assert.equal(after.base - before.base, PRICE_UNITS, 'the seller got the price on the chosen chain');
    assert.equal(before.buyer - after.buyer, PRICE_UNITS, 'the buyer paid the price on the chosen chain');
    assert.equal(after.cronos, before.cronos, 'nothing moved on the other chain');
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('paid HTML is shown in a sandboxed frame where its scripts do not run', async () => {
  const w = wallet(info.buyers[3].privateKey);
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(w, '/article');
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    const frame = await page.$eval('#x402-result iframe', (e) => ({ sandbox: e.getAttribute('sandbox'), srcdoc: e.srcdoc }));
    assert.equal(frame.sandbox, 'allow-popups allow-popups-to-escape-sandbox', 'the frame may only open links in a new tab');
    assert.match(frame.srcdoc, new RegExp(`Thank you for paying in ${tx}\\.`));
    const inner = await (await (await page.$('#x402-result iframe')).contentFrame()).evaluate(() => ({ text: document.body.textContent, ran: document.body.getAttribute('data-ran') }));
    assert.match(inner.text, /The paid article/);
    assert.equal(inner.ran, null, "the paid page's script did not run");
    assert.notEqual(await page.title(), 'pwned');
    await page.screenshot({ path: path.join(artifacts, '7-paid-html.png'), fullPage: true });
    const afterPay = await balances(w.address);
    assert.equal(before.buyer - afterPay.buyer, PRICE_UNITS);
    assert.equal(afterPay.seller - before.seller, PRICE_UNITS);
    assert.deepEqual(seen.errors, []);
  } finally {
    await ctx.close();
  }
});

test('paid HTML keeps its own styles in the frame, and its script still does not run', async () => {
  const w = wallet(info.buyers[0].privateKey);
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(w, '/report');
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    assert.equal(await page.$eval('#x402-result iframe', (e) => e.getAttribute('sandbox')), 'allow-popups allow-popups-to-escape-sandbox', 'the frame may only open links in a new tab');
    const frame = await (await page.$('#x402-result iframe')).contentFrame();
    await frame.waitForSelector('#ran');
    const got = await frame.evaluate(() => {
      const cs = (sel) => getComputedStyle(document.querySelector(sel));
      return {
        origin: window.origin,
        bodyBackground: cs('body').backgroundColor,
        bodyFont: cs('body').fontFamily,
        h1Color: cs('h1').color,
        h1Border: cs('h1').borderBottomWidth + ' ' + cs('h1').borderBottomStyle + ' ' + cs('h1').borderBottomColor,
        cardBackground: cs('.card').backgroundColor,
        cardRadius: cs('.card').borderTopLeftRadius,
        noteColor: cs('.note').color,
        noteWeight: cs('.note').fontWeight,
        ranSize: cs('#ran').fontSize,
        ran: document.getElementById('ran').textContent,
        paid: document.querySelector('.card p').textContent,
        lang: document.documentElement.lang,
        mode: document.compatMode,
      };
    });
    // The seller's style sheet and style attributes apply...
    assert.deepEqual(got, {
      origin: 'null', // sandboxed: an opaque origin, not this page's
      bodyBackground: 'rgb(255, 244, 204)',
      bodyFont: '"DejaVu Serif", serif',
      h1Color: 'rgb(170, 20, 40)',
      h1Border: '4px solid rgb(170, 20, 40)',
      cardBackground: 'rgb(20, 60, 140)',
      cardRadius: '8px',
      noteColor: 'rgb(255, 210, 0)', // the style attribute beats .card .note
      noteWeight: '700',
      ranSize: '20px',
      // ...but the script did not run.
      ran: 'the script did not run',
      paid: `Paid in ${tx}`,
      lang: 'en',
      mode: 'CSS1Compat',
    });
    assert.notEqual(await page.title(), 'pwned');
    // The frame takes most of the window (70% of its 1000 px) and a person
    // can make it taller.
    assert.deepEqual(await page.$eval('#x402-result iframe', (e) => [Math.round(e.getBoundingClientRect().height), getComputedStyle(e).resize]), [700, 'vertical']);
    // A link to a web page opens in a new tab, as an ordinary page; a link
    // that names its own target keeps it, and one within the content stays.
    const links = await frame.$$eval('a', (as) => as.map((a) => [a.id, a.target, a.rel]));
    assert.deepEqual(links, [['web', '_blank', 'noopener noreferrer'], ['away', '_self', ''], ['top', '', '']]);
    const opened = ctx.waitForTarget((t) => t.url() === `${site}/report?part=2`, { timeout: 10000 });
    await frame.click('#web');
    const tab = await (await opened).page();
    await tab.waitForSelector('#x402-pay'); // the paywall page of that URL, in its own tab
    assert.equal(await tab.evaluate(() => window.origin), site, 'the tab is an ordinary page of the site, not sandboxed');
    await tab.close();
    // The frame's styles are allowed by the frame nonce, which the policy
    // gives style sheets only: no violation, and nothing loaded from elsewhere.
    assertNoCSPViolations(seen);
    await page.$eval('#x402-result iframe', (e) => e.scrollIntoView());
    await page.screenshot({ path: path.join(artifacts, '11-paid-html-styled.png'), fullPage: true });
    const afterPay = await balances(w.address);
    assert.equal(before.buyer - afterPay.buyer, PRICE_UNITS);
    assert.equal(afterPay.seller - before.seller, PRICE_UNITS);
  } finally {
    await ctx.close();
  }
});

test('access 1h: pay once on the page, reload shows the content without the wallet; another route still asks to pay', async () => {
  const w = wallet(info.buyers[2].privateKey);
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(w, '/daily/news');
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    const paid = JSON.parse(await page.$eval('#x402-content', (e) => e.textContent));
    assert.equal(paid.tx, tx);
    assert.equal(paid.from.toLowerCase(), w.address.toLowerCase());
    const until = new Date(paid.until);
    assert.ok(Math.abs(until.getTime() - (Date.now() + 3600e3)) < 60e3, `the access ends an hour after paying: ${paid.until}`);
    // The page says until when, in local time.
    const access = await page.$eval('#x402-access', (e) => ({ text: e.textContent, hidden: e.hidden }));
    const local = await page.evaluate((u) => new Date(u).toLocaleString(), paid.until);
    assert.deepEqual(access, { text: `Access until ${local}. Reload this page to see it again without paying.`, hidden: false });
    await page.screenshot({ path: path.join(artifacts, '15-access-paid.png'), fullPage: true });

    // The cookie the paid answer set, with its flags.
    const cookies = (await page.cookies(site + '/daily/news')).filter((c) => c.name.startsWith('x402_access_'));
    assert.equal(cookies.length, 1, JSON.stringify(await page.cookies(site + '/daily/news')));
    const [c] = cookies;
    assert.equal(c.httpOnly, true);
    assert.equal(c.secure, false, 'plain HTTP: not Secure');
    assert.equal(c.sameSite, 'Lax');
    assert.equal(c.path, '/daily/');
    assert.ok(Math.abs(c.expires * 1000 - until.getTime()) < 5000, `Max-Age runs to the grant's end: ${c.expires}`);
    assert.equal(await page.evaluate(() => document.cookie), '', 'HttpOnly: out of the page script\'s reach');

    // Reload: the content, and the wallet is not asked again.
    const calls = w.state.calls.length;
    const reloaded = await page.reload({ waitUntil: 'load' });
    assert.equal(reloaded.status(), 200);
    assert.match(reloaded.headers()['content-type'], /^application\/json/);
    const again = JSON.parse(await page.evaluate(() => document.body.innerText));
    assert.deepEqual(again, { edition: '/daily/news', from: ethers.getAddress(w.address), until: paid.until, via: 'cookie', tx: '' });
    await page.screenshot({ path: path.join(artifacts, '16-access-reloaded.png'), fullPage: true });
    // Another page of the same route too.
    const other = await page.goto(site + '/daily/sports', { waitUntil: 'load' });
    assert.equal(other.status(), 200);
    assert.equal(JSON.parse(await page.evaluate(() => document.body.innerText)).via, 'cookie');
    assert.equal(w.state.calls.length, calls, 'no request to the wallet after paying');
    assert.equal(w.state.calls.filter((m) => m === 'eth_signTypedData_v4').length, 1, 'one signature');

    // Another route of the site still asks to pay, and so does a route
    // without access.
    for (const p of ['/weekly/issue', '/api/weather']) {
      const r = await page.goto(site + p, { waitUntil: 'load' });
      assert.equal(r.status(), 402, p);
      assert.ok(await page.$('#x402-pay'), `${p} shows the payment page`);
    }
    await page.screenshot({ path: path.join(artifacts, '17-access-other-route.png'), fullPage: true });

    const afterPay = await balances(w.address);
    assert.equal(before.buyer - afterPay.buyer, PRICE_UNITS, 'paid once');
    assert.equal(afterPay.seller - before.seller, PRICE_UNITS);
    assert.deepEqual(seen.errors, []);
  } finally {
    await ctx.close();
  }
});

test('with two EIP-6963 wallets the person chooses, and the chosen one pays', async () => {
  // Orange also holds window.ethereum, as the last extension to load does;
  // the page must still ask.
  const orange = wallet(info.buyers[1].privateKey);
  const blue = wallet(info.buyers[4].privateKey, { rejectOnce: ['eth_signTypedData_v4'] });
  const orangeBefore = await token.balanceOf(orange.address);
  const before = await balances(blue.address);
  const { ctx, page, seen } = await openPage(orange, '/api/weather', [{ w: orange, ...ORANGE }, { w: blue, ...BLUE }]);
  try {
    await page.click('#x402-pay');
    await page.waitForSelector('#x402-wallets button');
    const status = await page.$eval('#x402-status', (e) => ({ kind: e.getAttribute('data-kind'), text: e.textContent }));
    assert.deepEqual(status, { kind: 'info', text: 'Choose a walletSeveral wallets are installed in this browser. Choose the one to pay with.' });
    const choices = await page.$$eval('#x402-wallets button', (bs) => bs.map((b) => {
      const img = b.querySelector('img');
      return { name: b.textContent, title: b.title, icon: img.getAttribute('src'), loaded: img.complete && img.naturalWidth, focused: document.activeElement === b };
    }));
    assert.deepEqual(choices, [
      { name: ORANGE.name, title: ORANGE.rdns, icon: ORANGE.icon, loaded: 96, focused: true },
      { name: BLUE.name, title: BLUE.rdns, icon: BLUE.icon, loaded: 96, focused: false },
    ]);
    assert.deepEqual([orange.state.calls, blue.state.calls], [[], []], 'no wallet is asked before the person chooses');
    await page.screenshot({ path: path.join(artifacts, '12-choose-wallet.png'), fullPage: true });

    // The person picks Blue, then declines its signature request once.
    await page.click('#x402-wallets button:nth-child(2)');
    const declined = await waitForOutcome(page);
    assert.equal(declined.title, 'Signature rejected');
    assert.deepEqual(await page.$$eval('#x402-wallets button', (bs) => bs.map((b) => b.getAttribute('aria-pressed'))), ['false', 'true']);
    await page.screenshot({ path: path.join(artifacts, '13-chosen-wallet-declined.png'), fullPage: true });

    // "Try again" pays with Blue without asking again: the choice holds
    // for the page's life.
    assert.equal(await page.$eval('#x402-pay', (e) => e.textContent), 'Try again');
    const paid = await payAndWait(page);
    assert.equal(paid.kind, 'ok', `payment status: ${paid.text}`);
    assert.deepEqual(orange.state.calls, [], 'Orange was never asked');
    assert.equal(blue.state.calls.filter((m) => m === 'eth_requestAccounts').length, 2);
    assert.equal(blue.state.calls.filter((m) => m === 'eth_signTypedData_v4').length, 2);
    assert.equal(blue.state.typedData.message.from, blue.address);
    assert.equal(await page.$eval('#x402-from', (e) => e.textContent.toLowerCase()), blue.address.toLowerCase());
    const content = JSON.parse(await page.$eval('#x402-content', (e) => e.textContent));
    assert.equal(content.paid.from.toLowerCase(), blue.address.toLowerCase());
    assert.equal(await page.$eval('#x402-wallets', (e) => e.hidden), true, 'the choice goes away once paid');
    await page.screenshot({ path: path.join(artifacts, '14-paid-with-chosen-wallet.png'), fullPage: true });

    const afterPay = await balances(blue.address);
    assert.equal(before.buyer - afterPay.buyer, PRICE_UNITS, 'Blue paid exactly the price');
    assert.equal(afterPay.seller - before.seller, PRICE_UNITS, 'the seller got exactly the price');
    assert.equal(await token.balanceOf(orange.address), orangeBefore, 'Orange paid nothing');
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('one EIP-6963 wallet and no window.ethereum: it pays without a choice', async () => {
  const w = wallet(info.buyers[2].privateKey);
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(null, '/api/weather', [{ w, ...BLUE }]);
  try {
    assert.equal(await page.evaluate(() => typeof window.ethereum), 'undefined');
    const status = await payAndWait(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    assert.deepEqual(w.state.calls.filter((m) => m !== 'eth_chainId'),
      ['eth_requestAccounts', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'wallet_switchEthereumChain', 'eth_call', 'eth_signTypedData_v4']);
    assert.equal(await page.$eval('#x402-wallets', (e) => e.hidden && e.children.length === 0), true, 'no chooser for one wallet');
    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    assert.equal((await rpc.getTransactionReceipt(tx)).status, 1);
    assert.equal(w.state.typedData.message.from, w.address);
    await page.screenshot({ path: path.join(artifacts, '15-one-eip6963-wallet.png'), fullPage: true });
    const afterPay = await balances(w.address);
    assert.equal(before.buyer - afterPay.buyer, PRICE_UNITS);
    assert.equal(afterPay.seller - before.seller, PRICE_UNITS);
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

// permit2Allowance is the token's allowance of Permit2 for owner.
async function permit2Allowance(owner) {
  const t = new ethers.Contract(info.token.address, ['function allowance(address,address) view returns (uint256)'], rpc);
  return t.allowance(owner, PERMIT2);
}

// approvePermit2 sets, from the buyer's key, the token's allowance of
// Permit2 to amount, and waits for the transaction's block.
async function approvePermit2(key, amount) {
  const t = new ethers.Contract(info.token.address, ['function approve(address,uint256) returns (bool)'], new ethers.Wallet(key, rpc));
  await (await t.approve(PERMIT2, amount)).wait();
}

// metered opens an upto (or Permit2) route's page, checks what it says
// before paying, pays and returns what the page and the wallet did.
async function payPermit2Page(w, urlPath, wantButton) {
  const before = await balances(w.address);
  const gasBefore = await rpc.getBalance(w.address);
  const opened = await openPage(w, urlPath);
  const { page, res } = opened;
  assert.equal(res.status(), 402);
  assert.equal(await page.$eval('#x402-pay', (e) => e.textContent), wantButton);
  assert.equal(await page.$eval('#x402-steps li[data-step="approve"]', (e) => e.hidden), false, 'the Permit2 step is shown');
  const status = await payAndWait(page);
  const after = await balances(w.address);
  return { ...opened, status, paid: before.buyer - after.buyer, got: after.seller - before.seller, gas: gasBefore - (await rpc.getBalance(w.address)) };
}

test('an upto route: the page sends the Permit2 approval, signs the permit for the maximum, shows the content and the charge, and the balance moves by exactly the metered charge', async () => {
  const w = wallet(info.buyers[3].privateKey);
  assert.equal(await permit2Allowance(w.address), 0n, 'the buyer starts without a Permit2 allowance');
  const { ctx, page, seen, status, paid, got, gas } = await payPermit2Page(w, '/metered/ask', 'Pay at most 0.01 devUSDC.e with your wallet');
  try {
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    assert.equal(await page.$eval('#x402-atmost', (e) => e.textContent), 'at most');
    await page.screenshot({ path: path.join(artifacts, '13-upto-paid.png'), fullPage: true });
    // The approval: one transaction, approve(Permit2, max uint256) on the
    // token, mined before the permit was signed.
    assert.deepEqual(w.state.calls.filter((m) => !['eth_chainId', 'eth_getTransactionReceipt'].includes(m)),
      ['eth_requestAccounts', 'wallet_switchEthereumChain', 'wallet_addEthereumChain', 'wallet_switchEthereumChain', 'eth_call', 'eth_call', 'eth_sendTransaction', 'eth_signTypedData_v4']);
    assert.equal(w.state.sent.length, 1);
    assert.equal(w.state.sent[0].to.toLowerCase(), info.token.address.toLowerCase());
    assert.equal(w.state.sent[0].data, new ethers.Interface(['function approve(address,uint256)']).encodeFunctionData('approve', [PERMIT2, ethers.MaxUint256]));
    assert.equal((await rpc.getTransactionReceipt(w.state.sent[0].hash)).status, 1);
    assert.ok(gas > 0n, 'the buyer paid the approval\'s gas');
    // The permit: Permit2's PermitWitnessTransferFrom for the maximum to
    // the upto proxy, with the witness naming the facilitator.
    const td = w.state.typedData;
    assert.equal(td.primaryType, 'PermitWitnessTransferFrom');
    assert.deepEqual(td.domain, { name: 'Permit2', chainId: info.chainId, verifyingContract: PERMIT2 });
    assert.deepEqual(td.types.Witness, [{ name: 'to', type: 'address' }, { name: 'facilitator', type: 'address' }, { name: 'validAfter', type: 'uint256' }]);
    assert.equal(td.message.permitted.amount, String(PRICE_UNITS));
    assert.equal(td.message.permitted.token.toLowerCase(), info.token.address.toLowerCase());
    assert.equal(td.message.spender, UPTO_PROXY);
    assert.equal(td.message.witness.to.toLowerCase(), SELLER);
    assert.equal(td.message.witness.facilitator.toLowerCase(), info.signer.address.toLowerCase());
    assert.equal(td.message.witness.validAfter, '0');
    // The content, and exactly the metered charge: 321 tokens at 0.000002.
    const content = JSON.parse(await page.$eval('#x402-content', (e) => e.textContent));
    assert.deepEqual(content, { answer: '42', usage: { total_tokens: METERED_TOKENS } });
    const charge = BigInt(METERED_TOKENS * 2);
    assert.equal(paid, charge, 'the buyer paid exactly the metered charge');
    // The token spends the approval like any allowance: max uint256 less the charge.
    assert.equal(await permit2Allowance(w.address), ethers.MaxUint256 - charge);
    assert.equal(got, charge, 'the seller got exactly the metered charge');
    assert.match(status.text, /Charged 0\.000642 devUSDC\.e of at most 0\.01 devUSDC\.e, in transaction 0x[0-9a-f]{64}/);
    assert.equal(await page.$eval('#x402-charged', (e) => e.textContent), '0.000642 devUSDC.e (642 smallest units) of at most 0.01 devUSDC.e');
    // The signed receipt (offer_receipt eip712) states the metered charge.
    assert.equal(await page.$eval('#x402-signer', (e) => e.textContent), `did:web:127.0.0.1%3A${new URL(site).port} (EIP-712)`);
    assert.equal(await page.$eval('#x402-signed-charge', (e) => e.textContent),
      'Charged 0.000642 devUSDC.e (642 smallest units) of at most 0.01 devUSDC.e, for usage.total_tokens=321.');
    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    assert.equal((await rpc.getTransactionReceipt(tx)).status, 1);
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
  // A second payment finds the allowance: no transaction, one signature.
  const w2 = wallet(info.buyers[3].privateKey);
  const again = await payPermit2Page(w2, '/metered/again', 'Pay at most 0.01 devUSDC.e with your wallet');
  try {
    assert.equal(again.status.kind, 'ok', `payment status: ${again.status.text}`);
    assert.ok(!w2.state.calls.includes('eth_sendTransaction'), 'no second approval');
    assert.equal(w2.state.typed.length, 1);
    assert.equal(again.paid, BigInt(METERED_TOKENS * 2));
  } finally {
    await again.ctx.close();
  }
});

test('an upto route with gas_sponsoring eip2612: no approval transaction, the EIP-2612 permit is signed instead, and the buyer pays no gas', async () => {
  const w = wallet(info.buyers[4].privateKey);
  assert.equal(await permit2Allowance(w.address), 0n, 'the buyer starts without a Permit2 allowance');
  const { ctx, page, seen, status, paid, got, gas } = await payPermit2Page(w, '/sponsored/ask', 'Pay at most 0.01 devUSDC.e with your wallet');
  try {
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    assert.ok(!w.state.calls.includes('eth_sendTransaction'), 'no transaction of the buyer');
    assert.equal(gas, 0n, 'the buyer paid no gas');
    assert.deepEqual(w.state.typed.map((t) => t.primaryType), ['Permit', 'PermitWitnessTransferFrom']);
    const permit = w.state.typed[0];
    assert.deepEqual({ ...permit.domain, verifyingContract: permit.domain.verifyingContract.toLowerCase() },
      { name: info.token.name, version: info.token.version, chainId: info.chainId, verifyingContract: info.token.address.toLowerCase() });
    assert.equal(permit.message.spender, PERMIT2);
    assert.equal(permit.message.value, String(PRICE_UNITS));
    assert.equal(permit.message.deadline, w.state.typed[1].message.deadline, 'the permit lasts as long as the payment');
    const charge = BigInt(SPONSORED_TOKENS * 2);
    assert.equal(paid, charge, 'the buyer paid exactly the metered charge');
    assert.equal(got, charge, 'the seller got exactly the metered charge');
    assert.match(status.text, /Charged 0\.0002 devUSDC\.e of at most 0\.01 devUSDC\.e/);
    assert.equal(JSON.parse(await page.$eval('#x402-content', (e) => e.textContent)).answer, '43');
    await page.screenshot({ path: path.join(artifacts, '14-upto-sponsored.png'), fullPage: true });
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('an exact route with asset_transfer permit2: the page signs the Permit2 transfer of the price to the exact proxy', async () => {
  // buyers[3] approved Permit2 in the upto test above.
  const w = wallet(info.buyers[3].privateKey);
  const { ctx, page, seen, status, paid, got } = await payPermit2Page(w, '/permit2/doc', 'Pay 0.01 devUSDC.e with your wallet');
  try {
    assert.equal(status.kind, 'ok', `payment status: ${status.text}`);
    assert.ok(!w.state.calls.includes('eth_sendTransaction'), 'the allowance is there: no approval');
    const td = w.state.typedData;
    assert.equal(td.primaryType, 'PermitWitnessTransferFrom');
    assert.equal(td.message.spender, EXACT_PROXY);
    assert.deepEqual(td.types.Witness, [{ name: 'to', type: 'address' }, { name: 'validAfter', type: 'uint256' }]);
    assert.deepEqual(td.message.witness, { to: td.message.witness.to, validAfter: '0' });
    assert.equal(td.message.witness.to.toLowerCase(), SELLER);
    assert.equal(paid, PRICE_UNITS, 'the buyer paid exactly the price');
    assert.equal(got, PRICE_UNITS, 'the seller got exactly the price');
    const tx = await page.$eval('#x402-tx', (e) => e.textContent);
    assert.equal(JSON.parse(await page.$eval('#x402-content', (e) => e.textContent)).paid.tx_hash, tx);
    assert.match(status.text, new RegExp(`Settled in transaction ${tx}`));
    // The payment carries the payment-identifier extension the 402
    // declares (payment_identifier optional by default), with an id.
    assert.equal(seen.signatures.length, 1);
    assertPaymentId(decodeB64JSON(seen.signatures[0]));
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

// decodeB64JSON reads a Base64 JSON header.
function decodeB64JSON(v) {
  return JSON.parse(Buffer.from(v, 'base64').toString('utf8'));
}

// assertPaymentId checks a version 2 payment's payment-identifier
// extension: the 402's declaration echoed with an id as
// @x402/extensions' generatePaymentId makes them; it returns the id.
function assertPaymentId(payment) {
  const ext = payment.extensions && payment.extensions['payment-identifier'];
  assert.ok(ext, `the payment carries no payment-identifier: ${JSON.stringify(payment.extensions)}`);
  assert.equal(ext.info.required, false);
  assert.match(ext.info.id, /^pay_[0-9a-f]{32}$/);
  assert.equal(ext.schema.properties.id.pattern, '^[a-zA-Z0-9_-]+$', 'the declaration\'s schema is echoed');
  return ext.info.id;
}

test('a Permit2 payment whose answer is lost: the button sends the same payment again (its payment id, no new signature), and the buyer pays once', async () => {
  const w = wallet(info.buyers[2].privateKey);
  if ((await permit2Allowance(w.address)) === 0n) await approvePermit2(info.buyers[2].privateKey, ethers.MaxUint256);
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(w, '/permit2/lost');
  try {
    // The first paid request reaches the seller, which settles and
    // serves it; the connection then breaks before the page reads the
    // answer (as a network that drops it would).
    let served = null;
    await page.setRequestInterception(true);
    page.on('request', async (r) => {
      const sig = r.headers()['payment-signature'];
      if (!sig || served) return r.continue();
      const res = await fetch(r.url(), { headers: r.headers() });
      served = { status: res.status, receipt: decodeB64JSON(res.headers.get('payment-response')), body: await res.text() };
      return r.abort('connectionreset');
    });
    const lost = await payAndWait(page);
    assert.equal(served.status, 200, `the first request: ${served.body}`);
    assert.equal(served.receipt.success, true);
    assert.equal(lost.kind, 'error');
    assert.equal(lost.title, 'The seller could not be reached');
    assert.match(lost.text, /Your payment may still go through: press the button to send the same payment again \(no new signature\); it is charged at most once\./);
    assert.equal(await page.$eval('#x402-pay', (e) => e.textContent), 'Try again');

    // Try again: the same PAYMENT-SIGNATURE, byte for byte, signed once;
    // the seller knows it (its payment id, delivered) and says so.
    const again = await payAndWait(page);
    assert.equal(seen.signatures.length, 2);
    assert.equal(seen.signatures[1], seen.signatures[0], 'the same payment is sent again');
    assertPaymentId(decodeB64JSON(seen.signatures[0]));
    assert.equal(w.state.typed.length, 1, 'the wallet signed once');
    assert.equal(again.kind, 'warn');
    assert.equal(again.title, 'Already paid');
    assert.equal(again.text, 'Already paidThis payment was settled in transaction ' + served.receipt.transaction +
      ' and its content was served to an earlier request whose answer was lost; the seller does not serve it or charge it again. Press the button to buy it again with a new payment.');
    assert.equal(await page.$eval('#x402-tx', (e) => e.textContent), served.receipt.transaction);
    const after = await balances(w.address);
    assert.equal(before.buyer - after.buyer, PRICE_UNITS, 'the buyer paid the price once');
    assert.equal(after.seller - before.seller, PRICE_UNITS, 'the seller got the price once');
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('an upto route that used nothing is charged nothing; one settled after its answer moves the metered charge, and the page fetches its receipt from the look-up', async () => {
  // buyers[3] approved Permit2 in the upto test above.
  const w = wallet(info.buyers[3].privateKey);
  const zero = await payPermit2Page(w, '/unused/q', 'Pay at most 0.01 devUSDC.e with your wallet');
  try {
    assert.equal(zero.status.kind, 'ok', `payment status: ${zero.status.text}`);
    assert.equal(zero.status.text, 'PaidCharged nothing (at most 0.01 devUSDC.e): the answer used nothing, so no transaction was sent.');
    assert.equal(await zero.page.$eval('#x402-receipt-title', (e) => e.textContent), 'Nothing charged');
    assert.equal(await zero.page.$eval('#x402-charged', (e) => e.textContent), '0 devUSDC.e (0 smallest units) of at most 0.01 devUSDC.e');
    assert.equal(zero.paid, 0n);
    assert.equal(zero.got, 0n);
    assert.equal(JSON.parse(await zero.page.$eval('#x402-content', (e) => e.textContent)).answer, 'cached');
    assertNoCSPViolations(zero.seen);
  } finally {
    await zero.ctx.close();
  }
  const sellerBefore = await token.balanceOf(SELLER);
  const after = await payPermit2Page(wallet(info.buyers[3].privateKey), '/after/q', 'Pay at most 0.01 devUSDC.e with your wallet');
  try {
    assert.equal(after.status.kind, 'ok', `payment status: ${after.status.text}`);
    assert.equal(after.status.text, 'PaidYou signed for at most 0.01 devUSDC.e. This seller settles the charge when the answer ends and sends the receipt in an HTTP trailer, ' +
      'which a web page cannot read: the page asks the seller for it once the charge is settled.');
    assert.equal(JSON.parse(await after.page.$eval('#x402-content', (e) => e.textContent)).answer, '44');
    const charge = BigInt(METERED_TOKENS * 2);
    await waitFor('the settle after the answer', async () => (await token.balanceOf(SELLER)) - sellerBefore === charge, 20000);
    assert.equal((await token.balanceOf(SELLER)) - sellerBefore, charge, 'exactly the metered charge, once');
    // The receipt came in a trailer the page cannot read: the page asks the
    // site's look-up for it (by payer and payment id) and shows what it says.
    await after.page.waitForFunction(() => /in transaction/.test(document.getElementById('x402-status').textContent), { timeout: 40000 });
    const payment = decodeB64JSON(after.seen.signatures[0]);
    const kept = await (await fetch(`${site}/.well-known/x402/receipt?payer=${payment.payload.permit2Authorization.from}&payment_id=${payment.extensions['payment-identifier'].info.id}`)).json();
    const tx = kept.receipt.payload.transaction;
    assert.match(tx, /^0x[0-9a-f]{64}$/);
    assert.equal((await rpc.getTransactionReceipt(tx)).status, 1);
    assert.equal(await after.page.$eval('#x402-status', (e) => e.textContent), `PaidCharged 0.000642 devUSDC.e of at most 0.01 devUSDC.e, in transaction ${tx}.`);
    assert.equal(await after.page.$eval('#x402-tx', (e) => e.textContent), tx);
    assert.equal(await after.page.$eval('#x402-charged', (e) => e.textContent), '0.000642 devUSDC.e (642 smallest units) of at most 0.01 devUSDC.e');
    assert.equal(await after.page.$eval('#x402-signer', (e) => e.textContent), `did:web:127.0.0.1%3A${new URL(site).port} (EIP-712)`);
    assert.equal(await after.page.$eval('#x402-signed-charge', (e) => e.textContent),
      'Charged 0.000642 devUSDC.e (642 smallest units) of at most 0.01 devUSDC.e, for usage.total_tokens=321.');
    assertNoCSPViolations(after.seen);
  } finally {
    await after.ctx.close();
  }
});

test('an upto answer settled after it whose settlement fails: the page stops asking for the receipt and says the charge is not confirmed', async () => {
  // buyers[3] approved Permit2 in the upto test above; it takes the
  // approval back while the seller's upstream holds the answer, so the
  // settlement after the answer cannot move its tokens (a real refusal).
  const w = wallet(info.buyers[3].privateKey);
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(w, '/afterslow/q');
  try {
    await page.click('#x402-pay');
    assert.equal(await slow.arrived, '/afterslow/q', 'the paid request reached the upstream');
    await approvePermit2(info.buyers[3].privateKey, 0n);
    assert.equal(await permit2Allowance(w.address), 0n);
    slow.release();
    await page.waitForFunction(() => /asks the seller for it/.test(document.getElementById('x402-status').textContent), { timeout: 20000 });
    assert.equal(JSON.parse(await page.$eval('#x402-content', (e) => e.textContent)).answer, '45', 'the answer went out before its settlement');
    // The page asks the look-up for 30 s (404: no receipt is kept), then says so.
    await page.waitForFunction(() => document.getElementById('x402-status').getAttribute('data-kind') === 'warn', { timeout: 50000 });
    const payment = decodeB64JSON(seen.signatures[0]);
    const lookup = `/.well-known/x402/receipt?payer=${encodeURIComponent(payment.payload.permit2Authorization.from)}&payment_id=${encodeURIComponent(payment.extensions['payment-identifier'].info.id)}`;
    assert.equal(await page.$eval('#x402-status', (e) => e.textContent), 'Charge not confirmed' +
      'You signed for at most 0.01 devUSDC.e. The seller has kept no receipt for this payment after 30 seconds: its settlement failed, or is still on its way. ' +
      `Your wallet's activity shows whether a transaction was made; once the seller keeps the receipt, it is at ${lookup}.`);
    assert.equal((await fetch(site + lookup)).status, 404, 'the seller kept no receipt');
    const after = await balances(w.address);
    assert.equal(after.buyer, before.buyer, 'the buyer paid nothing');
    assert.equal(after.seller, before.seller, 'the seller got nothing');
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
    await approvePermit2(info.buyers[3].privateKey, ethers.MaxUint256);
  }
});

test('an upto route: a declined approval says so and moves nothing', async () => {
  const w = wallet(ethers.Wallet.createRandom().privateKey, { reject: ['eth_sendTransaction'] });
  // A buyer with tokens but no allowance: the seller's minter would be
  // needed to fund a fresh key, so this one reports a balance (the page
  // reads it through the wallet) and has none on chain.
  const { ctx, page } = await openPage({ ...w, handle: async (method, params) => {
    if (method === 'eth_call' && params[0].data.startsWith('0x70a08231')) { w.state.calls.push(method); return { result: ethers.toBeHex(PRICE_UNITS, 32) }; }
    return w.handle(method, params);
  } }, '/metered/declined');
  try {
    const sellerBefore = await token.balanceOf(SELLER);
    const status = await payAndWait(page);
    assert.equal(status.kind, 'warn');
    assert.equal(status.title, 'Approval declined');
    assert.match(status.text, /You declined the Permit2 approval\. Nothing was sent and nothing was paid\./);
    assert.equal(status.failedStep, 'Allow Permit2');
    assert.ok(!w.state.calls.includes('eth_signTypedData_v4'), 'nothing is signed');
    assert.equal(await token.balanceOf(SELLER), sellerBefore);
  } finally {
    await ctx.close();
  }
});

test('an upto route, a wallet that cannot read the allowance: the page signs, and the seller\'s refusal says Permit2 needs approving; nothing moves', async () => {
  // buyers[0] has tokens and never approved Permit2; its wallet fails
  // the allowance read, so the page cannot know and does not ask.
  const w = wallet(info.buyers[0].privateKey);
  const { ctx, page } = await openPage({ ...w, handle: async (method, params) => {
    if (method === 'eth_call' && params[0].data.startsWith('0xdd62ed3e')) { w.state.calls.push(method); return { error: { code: -32000, message: 'execution reverted' } }; }
    return w.handle(method, params);
  } }, '/metered/unapproved');
  try {
    const before = await balances(w.address);
    const status = await payAndWait(page);
    assert.equal(status.kind, 'error');
    assert.equal(status.title, 'Payment refused');
    assert.match(status.text, /The seller refused the payment: Permit2 allowance required: the payer must approve Permit2 \(0x000000000022D473030F116dDEE9F6B43aC78BA3\) on the token/);
    assert.ok(!w.state.calls.includes('eth_sendTransaction'));
    assert.deepEqual(await balances(w.address), before, 'nothing moved');
  } finally {
    await ctx.close();
  }
});

test('a rejected signature says so and moves no money', async () => {
  const w = wallet(info.buyers[1].privateKey, { reject: ['eth_signTypedData_v4'] });
  const before = await balances(w.address);
  const { ctx, page, seen } = await openPage(w);
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'warn');
    assert.equal(status.title, 'Signature rejected');
    assert.match(status.text, /You rejected the signature request in your wallet\. Nothing was paid\./);
    assert.match(status.failedStep, /Sign authorization/);
    assert.equal(await page.$eval('#x402-pay', (e) => e.textContent), 'Try again');
    await page.screenshot({ path: path.join(artifacts, '3-signature-rejected.png'), fullPage: true });
    assert.deepEqual(await balances(w.address), before);
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('without a wallet the page says one is needed', async () => {
  const { ctx, page, seen } = await openPage(null);
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'error');
    assert.equal(status.title, 'No wallet found');
    assert.match(status.text, /needs a browser wallet/);
    await page.setViewport({ width: 390, height: 844 }); // a phone's width
    await page.screenshot({ path: path.join(artifacts, '4-no-wallet-phone.png'), fullPage: true });
    assertNoCSPViolations(seen);
  } finally {
    await ctx.close();
  }
});

test('a declined chain switch is a wrong-network message', async () => {
  const w = wallet(info.buyers[2].privateKey, { reject: ['wallet_switchEthereumChain'] });
  const { ctx, page } = await openPage(w);
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'error');
    assert.equal(status.title, 'Wrong network');
    assert.match(status.text, /Your wallet is on chain 1, but this payment is on Cronos devnet \(chain ID 338\)\. You declined the switch\./);
    assert.ok(!w.state.calls.includes('eth_signTypedData_v4'), 'nothing is signed on the wrong chain');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.screenshot({ path: path.join(artifacts, '5-wrong-network-dark.png'), fullPage: true });
  } finally {
    await ctx.close();
  }
});

test('a payment the seller refuses shows the reason from the answer', async () => {
  const w = wallet(ethers.Wallet.createRandom().privateKey, { staleBalance: 10n ** 12n });
  const sellerBefore = await token.balanceOf(SELLER);
  const { ctx, page } = await openPage(w);
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'error');
    assert.equal(status.title, 'Payment refused');
    assert.match(status.text, /The seller refused the payment: ERC20: transfer amount exceeds balance\./);
    assert.match(status.failedStep, /Settle on chain/);
    assert.ok(w.state.calls.includes('eth_signTypedData_v4'), 'the wallet signed for real');
    await page.screenshot({ path: path.join(artifacts, '8-refused.png'), fullPage: true });
    assert.equal(await token.balanceOf(SELLER), sellerBefore);
  } finally {
    await ctx.close();
  }
});

test('too little balance is told before signing', async () => {
  const w = wallet(ethers.Wallet.createRandom().privateKey);
  const { ctx, page } = await openPage(w);
  try {
    const status = await payAndWait(page);
    assert.equal(status.kind, 'error');
    assert.equal(status.title, 'Not enough devUSDC.e');
    assert.match(status.text, new RegExp(`This costs 0\\.01 devUSDC\\.e \\(10000 smallest units\\); your account ${w.address} has 0 devUSDC\\.e \\(0\\)`));
    assert.ok(!w.state.calls.includes('eth_signTypedData_v4'), 'nothing is signed without the funds');
    await page.screenshot({ path: path.join(artifacts, '6-low-balance.png'), fullPage: true });
  } finally {
    await ctx.close();
  }
});

// A lagging node: a JSON-RPC proxy in front of a separate devnet that, while
// stalled, answers eth_getTransactionReceipt and eth_getBlockReceipts with
// null (not mined yet, no such block), as a node behind the chain does. The facilitator's settle then times out
// and the paywall answers "Settlement pending"; the page must retry with
// the same authorization and get the content once the node catches up.
function laggingProxy(upstream) {
  const state = { stalled: true, held: 0 };
  const forward = async (body) => {
    const r = await fetch(upstream, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return r.json();
  };
  const server = http.createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    res.setHeader('Content-Type', 'application/json');
    try {
      const msg = JSON.parse(raw);
      const calls = Array.isArray(msg) ? msg : [msg];
      const isHeld = calls.map((c) => state.stalled && (c.method === 'eth_getTransactionReceipt' || c.method === 'eth_getBlockReceipts'));
      const pass = calls.filter((c, i) => !isHeld[i]);
      state.held += calls.length - pass.length;
      let answers = [];
      if (pass.length) answers = [].concat(await forward(Array.isArray(msg) ? pass : pass[0]));
      const byId = new Map(answers.map((a) => [JSON.stringify(a.id), a]));
      const out = calls.map((c, i) => (isHeld[i] ? { jsonrpc: '2.0', id: c.id, result: null } : byId.get(JSON.stringify(c.id))));
      res.end(JSON.stringify(Array.isArray(msg) ? out : out[0]));
    } catch (err) {
      res.statusCode = 502;
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } }));
    }
  });
  return { state, server };
}

test('a pending settlement is retried with the same authorization until the content comes', async () => {
  const bin = process.env.CADDY_BIN || path.join(tmp, 'caddy');
  const dir = fs.mkdtempSync(path.join(tmp, 'pending-'));
  const [chainPort, proxyPort, sitePort] = [await freePort(), await freePort(), await freePort()];
  const procs = [];
  let log = '';
  const start = (args, env = {}) => {
    const p = spawn(bin, args, { cwd: dir, env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    p.stdout.on('data', (b) => { log += b; });
    p.stderr.on('data', (b) => { log += b; });
    procs.push(p);
    return p;
  };
  const proxy = laggingProxy(`http://127.0.0.1:${chainPort}`);
  let ctx;
  try {
    // The chain alone (caddy x402 devnet), 1 s blocks: the engine's fee
    // bump (after 5 blocks) stays out of the way of a short stall.
    const chainInfo = path.join(dir, 'devnet.json');
    start(['x402', 'devnet', '--listen', `127.0.0.1:${chainPort}`, '--block-time', '1s', '--out', chainInfo]);
    const chain = await waitFor('the second devnet', () => fs.existsSync(chainInfo) && JSON.parse(fs.readFileSync(chainInfo, 'utf8')));
    await new Promise((r) => proxy.server.listen(proxyPort, '127.0.0.1', r));
    const site2 = `http://127.0.0.1:${sitePort}`;
    fs.writeFileSync(path.join(dir, 'Caddyfile'), `{
	admin off
	persist_config off
	x402 {
		network cronos-testnet {
			rpc http://127.0.0.1:${proxyPort}
			signer_key {env.X402_SIGNER_KEY}
		}
		settle_timeout 1s
		journal ${path.join(dir, 'journal.db')}
	}
}
http://127.0.0.1:${sitePort} {
	x402 /api/* {
		pay_to ${SELLER}
		price 0.01
		description "Weather API, one call"
		mime_type application/json
	}
	handle /api/* {
		header Content-Type application/json
		respond \`{"city":"Singapore","paid":{"tx_hash":"{http.x402.tx_hash}"}}\`
	}
}
`);
    start(['run', '--config', path.join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], { X402_SIGNER_KEY: chain.signer.privateKey });
    await waitFor('the second Caddy', async () => (await fetch(site2 + '/api/weather')).status === 402);

    const rpc2 = new ethers.JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true });
    const token2 = token.connect(rpc2);
    const w = wallet(chain.buyers[0].privateKey, { rpcUrls: ['https://evm-t3.cronos.org'] });
    const b0 = await token2.balanceOf(w.address);
    const s0 = await token2.balanceOf(SELLER);

    ctx = await browser.createBrowserContext();
    const page = await ctx.newPage();
    await page.setViewport({ width: 900, height: 1000 });
    await page.exposeFunction('__x402Wallet', (method, params) => {
      const p = JSON.parse(params);
      // This wallet's eth_call goes to the second chain.
      if (method === 'eth_call') return rpc2.send('eth_call', p).then((result) => ({ result }));
      return w.handle(method, p);
    });
    await page.evaluateOnNewDocument(() => {
      window.ethereum = {
        async request({ method, params }) {
          const r = await window.__x402Wallet(method, JSON.stringify(params === undefined ? [] : params));
          if (r.error) { const e = new Error(r.error.message); e.code = r.error.code; throw e; }
          return r.result;
        },
      };
    });
    await page.goto(site2 + '/api/weather', { waitUntil: 'load' });
    const headers = [];
    page.on('request', (r) => { if (r.headers()['x-payment']) headers.push(r.headers()['x-payment']); });
    await page.click('#x402-pay');
    await page.waitForFunction(() => {
      const s = document.getElementById('x402-status');
      return s && s.querySelector('strong') && s.querySelector('strong').textContent === 'Settlement pending';
    }, { timeout: 30000 });
    const pendingText = await page.$eval('#x402-status', (e) => e.textContent);
    const pendingTx = await page.$eval('#x402-tx', (e) => e.textContent);
    assert.match(pendingTx, /^0x[0-9a-f]{64}$/, 'the pending answer names the transaction');
    assert.match(pendingText, new RegExp(`Transaction ${pendingTx} is not in a block yet`));
    assert.equal(await page.$eval('#x402-receipt-title', (e) => e.textContent), 'Payment sent, waiting for its block');
    await page.screenshot({ path: path.join(artifacts, '9-settlement-pending.png'), fullPage: true });
    assert.ok(proxy.state.held > 0, 'the node held back receipts');

    proxy.state.stalled = false; // the node catches up
    const status = await waitForOutcome(page);
    assert.equal(status.kind, 'ok', `payment status: ${status.text}\n${log.slice(-3000)}`);
    assert.equal(await page.$eval('#x402-tx', (e) => e.textContent), pendingTx, 'the settled transaction is the pending one');
    assert.equal(await page.$eval('#x402-receipt-title', (e) => e.textContent), 'Paid');
    await page.screenshot({ path: path.join(artifacts, '10-paid-after-pending.png'), fullPage: true });
    const content = JSON.parse(await page.$eval('#x402-content', (e) => e.textContent));
    assert.equal(content.paid.tx_hash, pendingTx);
    assert.ok(headers.length >= 2 && headers.every((h) => h === headers[0]), 'every retry carried the same X-PAYMENT');
    assert.equal(b0 - (await token2.balanceOf(w.address)), PRICE_UNITS, 'the buyer paid once');
    assert.equal((await token2.balanceOf(SELLER)) - s0, PRICE_UNITS, 'the seller was paid once');
    rpc2.destroy();
  } finally {
    if (ctx) await ctx.close();
    for (const p of procs.reverse()) {
      if (p.exitCode === null) {
        p.kill('SIGTERM');
        await new Promise((r) => { const t = setTimeout(() => { p.kill('SIGKILL'); r(); }, 10000); p.on('exit', () => { clearTimeout(t); r(); }); });
      }
    }
    proxy.server.close();
  }
});
