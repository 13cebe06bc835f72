// The payment-identifier extension: @x402/fetch 2.x with @x402/extensions'
// payment-identifier client side pays our paywall under an id; the id
// never pays twice, and our 400 texts are the package's own.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import {
  PAYMENT_IDENTIFIER,
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier,
  generatePaymentId,
  validatePaymentIdentifier,
  validatePaymentIdentifierRequirement,
} from "@x402/extensions/payment-identifier";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, decodeB64JSON } from "../lib/harness.mjs";

const payTo = newPayTo();
let caddy;

before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402 /order {
		pay_to ${payTo}
		amount 10000
		network eip155:338
		payment_identifier required
	}
	respond /order "{\\"order\\":\\"created\\"}" 200
}
`);
});
after(async () => caddy?.stop());

// payingFetch is @x402/fetch for the devnet buyer; with an id, the
// payment-identifier client side adds it before each payment is created
// (the package's documented hook). sent collects the PAYMENT-SIGNATURE
// headers it sends.
function payingFetch(buyer, id, sent) {
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
  });
  registerExactEvmScheme(client, { signer: buyer });
  if (id) {
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      appendPaymentIdentifierToExtensions(paymentRequired.extensions, id);
    });
  }
  const recording = async (input, init) => {
    const sig = new Request(input, init).headers.get("payment-signature");
    if (sig) sent.push(sig);
    return fetch(input, init);
  };
  return wrapFetchWithPayment(recording, client);
}

test("payment-identifier: declared as the package declares it; an id pays once; a new authorization under it gets 409", async () => {
  const unpaid = await fetch(caddy.url + "/order");
  assert.equal(unpaid.status, 402);
  const pr = decodeB64JSON(unpaid.headers.get("payment-required"));
  assert.deepEqual(pr.extensions, { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(true) });

  const buyer = privateKeyToAccount(caddy.info.buyers[1].privateKey);
  const id = generatePaymentId("order_");
  const sent = [];
  const pay = payingFetch(buyer, id, sent);
  const sellerBefore = await balanceOf(caddy.info, payTo);
  const buyerBefore = await balanceOf(caddy.info, buyer.address);

  const res = await pay(caddy.url + "/order");
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.deepEqual(JSON.parse(text), { order: "created" });
  const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
  assert.equal(settle.success, true);
  assert.equal(sent.length, 1);
  const payload = decodeB64JSON(sent[0]);
  assert.equal(extractPaymentIdentifier(payload), id);

  // The same call again: @x402/fetch signs a new authorization under the
  // same id. 409, and no money moves.
  const again = await pay(caddy.url + "/order");
  assert.equal(again.status, 409);
  assert.equal(sent.length, 2);
  assert.notEqual(sent[1], sent[0]);
  const conflict = await again.json();
  assert.equal(conflict.error, "payment identifier already used with a different payload");
  assert.equal(conflict.paymentId, id);
  assert.equal(again.headers.get("payment-response"), null);

  // The first payment sent again: delivered already, so 409 with its
  // transaction; not served or charged a second time.
  const replay = await fetch(caddy.url + "/order", { headers: { "PAYMENT-SIGNATURE": sent[0] } });
  assert.equal(replay.status, 409);
  const done = await replay.json();
  assert.equal(done.error, "payment already delivered");
  assert.equal(done.paymentId, id);
  assert.equal(done.transaction, settle.transaction);
  assert.equal(done.network, "eip155:338");
  assert.equal(done.payer.toLowerCase(), buyer.address.toLowerCase());

  assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 10000n);
  assert.equal(buyerBefore - await balanceOf(caddy.info, buyer.address), 10000n);
});

test("payment-identifier: 400 without an id where required, and for a malformed id, in the package's words", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[1].privateKey);
  const sellerBefore = await balanceOf(caddy.info, payTo);

  const sent = [];
  const res = await payingFetch(buyer, null, sent)(caddy.url + "/order");
  assert.equal(res.status, 400);
  const payload = decodeB64JSON(sent[0]);
  assert.equal(extractPaymentIdentifier(payload), null);
  const required = validatePaymentIdentifierRequirement(payload, true);
  assert.deepEqual(await res.json(), { x402Version: 2, error: required.errors[0] });

  // The client side refuses to write a bad id, so write one by hand.
  payload.extensions[PAYMENT_IDENTIFIER].info.id = "order_short";
  const badFormat = validatePaymentIdentifier(payload.extensions[PAYMENT_IDENTIFIER]);
  assert.equal(badFormat.valid, false);
  const bad = await fetch(caddy.url + "/order", {
    headers: { "PAYMENT-SIGNATURE": Buffer.from(JSON.stringify(payload)).toString("base64") },
  });
  assert.equal(bad.status, 400);
  assert.deepEqual(await bad.json(), { x402Version: 2, error: badFormat.errors[0] });

  assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 0n);
});
