// The x402 1.x reference packages on a devnet run as base-sepolia (84532),
// a network their fixed table knows:
//  - x402-express 1.x (seller) settles through our facilitator, paid by
//    x402-fetch 1.x: the "charges, then refuses" case;
//  - x402-fetch 1.x (buyer) pays our paywall.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import express from "express";
import { paymentMiddleware } from "x402-express";
import { wrapFetchWithPayment, decodeXPaymentResponse } from "x402-fetch";
import { createWalletClient, http } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, decodeB64JSON, listen, chainOf, recordCalls } from "../lib/harness.mjs";

const paywallPayTo = newPayTo();
let caddy;

before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p, "chain_id 84532\n\t\t\tnetwork base-sepolia") + `
:${p.http} {
	x402_facilitator
	x402 /paid {
		pay_to ${paywallPayTo}
		amount 10000
		network base-sepolia
	}
	respond /paid "{\\"ok\\":true}" 200
}
`);
  assert.equal(caddy.info.chainId, 84532);
  assert.equal(caddy.info.network, "base-sepolia");
});
after(async () => caddy?.stop());

function buyerWallet(i) {
  const account = privateKeyToAccount(caddy.info.buyers[i].privateKey);
  return createWalletClient({ account, chain: chainOf(caddy.info), transport: http(caddy.info.rpcUrl) });
}

test("x402-express 1.x settles through our facilitator (paid by x402-fetch 1.x)", async () => {
  const payTo = newPayTo();
  const app = express();
  app.use(paymentMiddleware(payTo, {
    "GET /weather": {
      price: {
        amount: "20000",
        asset: { address: caddy.info.token.address, decimals: 6, eip712: { name: caddy.info.token.name, version: caddy.info.token.version } },
      },
      network: "base-sepolia",
    },
  }, { url: caddy.url + "/v2/x402" }));
  app.get("/weather", (req, res) => res.json({ weather: "sunny" }));
  const seller = await listen(app);
  const rec = recordCalls(caddy.url + "/v2/x402");
  try {
    const wallet = buyerWallet(1);
    const before = await balanceOf(caddy.info, payTo);
    const buyerBefore = await balanceOf(caddy.info, wallet.account.address);
    const res = await wrapFetchWithPayment(fetch, wallet)(seller.url + "/weather");
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.deepEqual(JSON.parse(body), { weather: "sunny" });
    const pr = decodeXPaymentResponse(res.headers.get("x-payment-response"));
    assert.equal(pr.success, true);
    assert.match(pr.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(pr.payer.toLowerCase(), wallet.account.address.toLowerCase());
    assert.equal(await balanceOf(caddy.info, payTo) - before, 20000n);
    assert.equal(buyerBefore - await balanceOf(caddy.info, wallet.account.address), 20000n);
    // Our facilitator answered verify and settle in the reference v1
    // dialect, and nothing failed after the transfer.
    assert.deepEqual(rec.calls.map((c) => [c.url, c.status]), [["/verify", 200], ["/settle", 200]]);
    const settle = JSON.parse(rec.calls[1].body);
    assert.equal(settle.success, true);
    assert.equal(settle.network, "base-sepolia");
    assert.equal(settle.transaction, pr.transaction);
  } finally {
    rec.restore();
    await seller.close();
  }
});

test("x402-express 1.x: a buyer without funds is refused at verify with a reference code, nothing settles", async () => {
  const payTo = newPayTo();
  const app = express();
  app.use(paymentMiddleware(payTo, {
    "GET /weather": {
      price: {
        amount: "20000",
        asset: { address: caddy.info.token.address, decimals: 6, eip712: { name: caddy.info.token.name, version: caddy.info.token.version } },
      },
      network: "base-sepolia",
    },
  }, { url: caddy.url + "/v2/x402" }));
  app.get("/weather", (req, res) => res.json({ weather: "sunny" }));
  const seller = await listen(app);
  const rec = recordCalls(caddy.url + "/v2/x402");
  try {
    const account = privateKeyToAccount(generatePrivateKey());
    const wallet = createWalletClient({ account, chain: chainOf(caddy.info), transport: http(caddy.info.rpcUrl) });
    const res = await wrapFetchWithPayment(fetch, wallet)(seller.url + "/weather");
    assert.equal(res.status, 402);
    const body = await res.json();
    assert.equal(body.error, "insufficient_funds");
    assert.deepEqual(rec.calls.map((c) => [c.url, c.status]), [["/verify", 200]]);
    const verify = JSON.parse(rec.calls[0].body);
    assert.deepEqual(verify, {
      isValid: false, invalidReason: "insufficient_funds",
      invalidMessage: "ERC20: transfer amount exceeds balance", payer: account.address,
    });
    assert.equal(await balanceOf(caddy.info, payTo), 0n);
  } finally {
    rec.restore();
    await seller.close();
  }
});

test("x402-fetch 1.x pays our paywall on base-sepolia", async () => {
  const wallet = buyerWallet(0);
  const unpaid = await fetch(caddy.url + "/paid");
  assert.equal(unpaid.status, 402);
  const v1 = await unpaid.json();
  assert.equal(v1.accepts[0].network, "base-sepolia");
  assert.equal(decodeB64JSON(unpaid.headers.get("payment-required")).accepts[0].network, "eip155:84532");

  const before = await balanceOf(caddy.info, paywallPayTo);
  const res = await wrapFetchWithPayment(fetch, wallet)(caddy.url + "/paid");
  const body = await res.text();
  assert.equal(res.status, 200, body);
  assert.equal(res.headers.get("payment-response"), null);
  const pr = decodeXPaymentResponse(res.headers.get("x-payment-response"));
  assert.equal(pr.success, true);
  assert.equal(pr.network, "base-sepolia");
  assert.equal(pr.payer.toLowerCase(), wallet.account.address.toLowerCase());
  assert.equal(await balanceOf(caddy.info, paywallPayTo) - before, 10000n);
});
