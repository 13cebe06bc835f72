// @x402/express 2.x (the v2 reference seller) verifies and settles through
// our facilitator on eip155:338, paid by @x402/fetch 2.x.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, listen, recordCalls } from "../lib/harness.mjs";

let caddy;
before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402_facilitator
}
`);
});
after(async () => caddy?.stop());

test("@x402/express 2.x settles through our facilitator (paid by @x402/fetch 2.x)", async () => {
  const payTo = newPayTo();
  const token = caddy.info.token;
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: caddy.url + "/v2/x402" }))
    .register("eip155:338", new ExactEvmScheme());
  const app = express();
  app.use(paymentMiddleware({
    "GET /weather": {
      accepts: {
        scheme: "exact",
        network: "eip155:338",
        payTo,
        price: { amount: "30000", asset: token.address, extra: { name: token.name, version: token.version } },
      },
      description: "interop: @x402/express",
    },
  }, server));
  app.get("/weather", (req, res) => res.json({ weather: "rain" }));
  const seller = await listen(app);
  const rec = recordCalls(caddy.url + "/v2/x402");
  try {
    const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey);
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:338", asset: token.address, maxAmountPerPayment: "30000" }] },
    });
    registerExactEvmScheme(client, { signer: buyer });
    const before = await balanceOf(caddy.info, payTo);
    const buyerBefore = await balanceOf(caddy.info, buyer.address);
    const res = await wrapFetchWithPayment(fetch, client)(seller.url + "/weather");
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.deepEqual(JSON.parse(body), { weather: "rain" });
    const pr = decodePaymentResponseHeader(res.headers.get("payment-response"));
    assert.equal(pr.success, true);
    assert.equal(pr.network, "eip155:338");
    assert.match(pr.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(await balanceOf(caddy.info, payTo) - before, 30000n);
    assert.equal(buyerBefore - await balanceOf(caddy.info, buyer.address), 30000n);
    const paths = rec.calls.map((c) => [c.url, c.status]);
    assert.deepEqual(paths.filter(([u]) => u !== "/supported"), [["/verify", 200], ["/settle", 200]]);
    const settle = JSON.parse(rec.calls.find((c) => c.url === "/settle").body);
    assert.deepEqual(Object.keys(settle).sort(), ["amount", "network", "payer", "success", "transaction"]);
  } finally {
    rec.restore();
    await seller.close();
  }
});
