// @x402/fetch 2.x (the v2 reference buyer) pays our paywall on eip155:338.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, decodeB64JSON } from "../lib/harness.mjs";

const payTo = newPayTo();
let caddy;

before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402_facilitator
	x402 /paid {
		pay_to ${payTo}
		amount 10000
		network eip155:338
		description "interop: @x402/fetch"
		mime_type application/json
	}
	respond /paid "{\\"ok\\":true}" 200
}
`);
});
after(async () => caddy?.stop());

test("@x402/fetch v2 pays the paywall on eip155:338", async () => {
  const unpaid = await fetch(caddy.url + "/paid");
  assert.equal(unpaid.status, 402);
  const pr = decodeB64JSON(unpaid.headers.get("payment-required"));
  assert.equal(pr.x402Version, 2);
  assert.equal(pr.resource.url, caddy.url + "/paid");
  assert.deepEqual(pr.accepts.map((a) => [a.scheme, a.network, a.amount, a.payTo.toLowerCase()]),
    [["exact", "eip155:338", "10000", payTo.toLowerCase()]]);
  assert.deepEqual(pr.accepts[0].extra, { name: caddy.info.token.name, version: caddy.info.token.version });
  const v1 = await unpaid.json();
  assert.equal(v1.x402Version, 1);
  assert.equal(v1.accepts[0].network, "cronos-testnet");
  assert.match(unpaid.headers.get("access-control-expose-headers"), /PAYMENT-REQUIRED/);

  const buyer = privateKeyToAccount(caddy.info.buyers[0].privateKey);
  // The devnet token is not one of the client's default assets: allow it,
  // capped at the price.
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
  });
  registerExactEvmScheme(client, { signer: buyer });
  const payingFetch = wrapFetchWithPayment(fetch, client);

  const sellerBefore = await balanceOf(caddy.info, payTo);
  const buyerBefore = await balanceOf(caddy.info, buyer.address);
  const res = await payingFetch(caddy.url + "/paid");
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.deepEqual(JSON.parse(text), { ok: true });
  assert.equal(res.headers.get("x-payment-response"), null);
  const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
  assert.equal(settle.success, true);
  assert.equal(settle.network, "eip155:338");
  assert.equal(settle.payer.toLowerCase(), buyer.address.toLowerCase());
  assert.match(settle.transaction, /^0x[0-9a-f]{64}$/);
  assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 10000n);
  assert.equal(buyerBefore - await balanceOf(caddy.info, buyer.address), 10000n);
});

test("a CORS preflight is not charged", async () => {
  const res = await fetch(caddy.url + "/paid", {
    method: "OPTIONS",
    headers: { Origin: "http://example.com", "Access-Control-Request-Method": "GET" },
  });
  assert.notEqual(res.status, 402);
});
