// Pay once, come back: @x402/fetch 2.x with @x402/extensions' Sign-In-With-X
// client (createSIWxClientExtension on the x402Client, and wrapFetchWithSIWx
// alone) against our paywall with "access": the first request pays, a fresh
// one later signs in with the paying wallet and is served with no transfer
// on chain; another wallet, a replayed header and an ended window get 402.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  SIGN_IN_WITH_X,
  buildSIWxSchema,
  createSIWxClientExtension,
  parseSIWxHeader,
  validateSIWxMessage,
  verifySIWxSignature,
  wrapFetchWithSIWx,
} from "@x402/extensions/sign-in-with-x";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, decodeB64JSON } from "../lib/harness.mjs";

const payTo = newPayTo();
const PRICE = 10000n;
let caddy;

before(async () => {
  const body = '`{"from":"{http.x402.from}","via":"{http.x402.access_via}","tx":"{http.x402.tx_hash}","until":"{http.x402.access_until}"}`';
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402 /data/* {
		pay_to ${payTo}
		amount ${PRICE}
		network eip155:338
		description "interop: a day of data"
		access 1h
	}
	x402 /brief/* {
		pay_to ${payTo}
		amount ${PRICE}
		network eip155:338
		access 6s
	}
	respond /data/* ${body} 200
	respond /brief/* ${body} 200
}
`);
});
after(async () => caddy?.stop());

// recorder wraps fetch and keeps, per request, the x402 headers it sent.
function recorder() {
  const sent = [];
  const f = async (input, init) => {
    const h = new Request(input, init).headers;
    sent.push({ siwx: h.get(SIGN_IN_WITH_X), payment: h.get("payment-signature") });
    return fetch(input, init);
  };
  return { sent, fetch: f };
}

// buyerFetch is the composition a buyer uses: one x402Client that pays
// with the exact EVM scheme and signs in with the SIWx client extension
// (its onPaymentRequired hook runs before any payment is made).
function buyerFetch(account, rec) {
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: String(PRICE) }] },
  });
  registerExactEvmScheme(client, { signer: account });
  client.registerExtension(createSIWxClientExtension({ signers: [account] }));
  return wrapFetchWithPayment(rec.fetch, client);
}

async function balances(buyer) {
  return { seller: await balanceOf(caddy.info, payTo), buyer: await balanceOf(caddy.info, buyer) };
}

test("sign-in-with-x: declared in the package's shape on every 402", async () => {
  const url = caddy.url + "/data/report?q=1";
  const res = await fetch(url);
  assert.equal(res.status, 402);
  const pr = decodeB64JSON(res.headers.get("payment-required"));
  const decl = pr.extensions[SIGN_IN_WITH_X];
  const uri = caddy.url + "/data/report";
  const { nonce, issuedAt, expirationTime, ...fixed } = decl.info;
  assert.deepEqual(fixed, {
    domain: new URL(caddy.url).host,
    uri,
    version: "1",
    resources: [uri],
    statement: "Sign in with the wallet that paid, to use the access it bought.",
  });
  assert.match(nonce, /^[0-9a-f]{48}$/);
  assert.ok(Math.abs(Date.parse(issuedAt) - Date.now()) < 30_000, issuedAt);
  assert.equal(Date.parse(expirationTime) - Date.parse(issuedAt), 5 * 60 * 1000);
  assert.deepEqual(decl.supportedChains, [{ chainId: "eip155:338", type: "eip191" }]);
  assert.deepEqual(decl.schema, buildSIWxSchema());
  assert.ok(pr.extensions["payment-identifier"], "beside the route's other extensions");
  const again = decodeB64JSON((await fetch(url)).headers.get("payment-required"));
  assert.notEqual(again.extensions[SIGN_IN_WITH_X].info.nonce, nonce, "a fresh nonce per 402");
});

test("sign-in-with-x: pay once, then a fresh request signs in and is served with no new transfer", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[0].privateKey);
  const start = await balances(buyer.address);

  // First: the sign-in is refused (no grant yet), so it pays.
  const rec1 = recorder();
  const first = await buyerFetch(buyer, rec1)(caddy.url + "/data/a");
  const paid = await first.json();
  assert.equal(first.status, 200, JSON.stringify(paid));
  assert.deepEqual(rec1.sent.map((s) => [!!s.siwx, !!s.payment]), [[false, false], [true, false], [false, true]]);
  assert.match(paid.tx, /^0x[0-9a-f]{64}$/);
  assert.equal(paid.from.toLowerCase(), buyer.address.toLowerCase());
  assert.ok(first.headers.get("payment-response"));
  const afterPay = await balances(buyer.address);
  assert.equal(afterPay.seller - start.seller, PRICE);
  assert.equal(start.buyer - afterPay.buyer, PRICE);

  // A second, fresh client (no state carried over): it signs in and is
  // served; it sends no payment, and no money moves.
  const rec2 = recorder();
  const second = await buyerFetch(buyer, rec2)(caddy.url + "/data/b");
  const served = await second.json();
  assert.equal(second.status, 200, JSON.stringify(served));
  assert.deepEqual(rec2.sent.map((s) => [!!s.siwx, !!s.payment]), [[false, false], [true, false]]);
  assert.deepEqual(served, { from: buyer.address, via: "sign-in-with-x", tx: "", until: paid.until });
  assert.equal(second.headers.get("payment-response"), null, "no settlement claims a new payment");
  assert.equal(second.headers.get("x-payment-access-until"), paid.until);

  // wrapFetchWithSIWx alone does the same; the header it sent passes the
  // package's own server-side checks (our challenge is a valid one).
  const rec3 = recorder();
  const third = await wrapFetchWithSIWx(rec3.fetch, buyer)(caddy.url + "/data/c");
  assert.equal(third.status, 200);
  assert.equal((await third.json()).via, "sign-in-with-x");
  const captured = rec3.sent[1].siwx;
  const payload = parseSIWxHeader(captured);
  assert.deepEqual(await validateSIWxMessage(payload, new URL(caddy.url)), { isValid: true });
  assert.deepEqual(await verifySIWxSignature(payload), { isValid: true, payer: buyer.address });

  // The captured header sent again: refused, its nonce is spent.
  const replay = await fetch(caddy.url + "/data/c", { headers: { [SIGN_IN_WITH_X]: captured } });
  assert.equal(replay.status, 402);
  assert.equal(decodeB64JSON(replay.headers.get("payment-required")).error, "Nonce validation failed (possible replay attack)");
  assert.equal((await replay.json()).error, "Nonce validation failed (possible replay attack)");

  const end = await balances(buyer.address);
  assert.deepEqual(end, afterPay, "no transfer after the first payment");
});

test("sign-in-with-x: another wallet's sign-in gets 402, and the buyer's own still holds", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[0].privateKey);
  const other = privateKeyToAccount(caddy.info.buyers[1].privateKey);
  const start = await balances(other.address);
  const res = await wrapFetchWithSIWx(fetch, other)(caddy.url + "/data/a");
  assert.equal(res.status, 402);
  const body = await res.json();
  assert.equal(body.error, `No access grant for ${other.address} on this route: pay for access`);
  assert.equal(decodeB64JSON(res.headers.get("payment-required")).error, body.error);
  assert.deepEqual(await balances(other.address), start);
  // The buyer's own grant is untouched by it.
  const own = await wrapFetchWithSIWx(fetch, buyer)(caddy.url + "/data/a");
  assert.equal(own.status, 200);
});

test("sign-in-with-x: after the window ends, 402, and the buyer pays again", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey);
  const start = await balances(buyer.address);
  const first = await buyerFetch(buyer, recorder())(caddy.url + "/brief/a");
  const paid = await first.json();
  assert.equal(first.status, 200, JSON.stringify(paid));
  const during = await wrapFetchWithSIWx(fetch, buyer)(caddy.url + "/brief/b");
  assert.equal(during.status, 200);
  assert.equal((await during.json()).via, "sign-in-with-x");

  const until = Date.parse(paid.until);
  await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 500));
  const ended = await wrapFetchWithSIWx(fetch, buyer)(caddy.url + "/brief/b");
  assert.equal(ended.status, 402);
  assert.equal((await ended.json()).error,
    `The access grant of ${buyer.address} on this route ended at ${paid.until}: pay again for access`);

  // The buyer's usual client pays for a new window.
  const rec = recorder();
  const renewed = await buyerFetch(buyer, rec)(caddy.url + "/brief/b");
  const again = await renewed.json();
  assert.equal(renewed.status, 200, JSON.stringify(again));
  assert.match(again.tx, /^0x[0-9a-f]{64}$/);
  assert.ok(Date.parse(again.until) > until);
  assert.deepEqual(rec.sent.map((s) => [!!s.siwx, !!s.payment]), [[false, false], [true, false], [false, true]]);
  const end = await balances(buyer.address);
  assert.equal(start.buyer - end.buyer, 2n * PRICE, "two windows, two payments");
  assert.equal(end.seller - start.seller, 2n * PRICE);
});
