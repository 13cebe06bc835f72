// batch-settlement (payment channels): the published server (@x402/express
// with @x402/evm 2.27's BatchSettlementEvmScheme and its channel manager)
// uses our facilitator through HTTPFacilitatorClient, paid by @x402/fetch
// with the published channel client: deposit -> vouchers -> claim ->
// settle -> refund, with balances checked. The facilitator serves claim,
// settle and refund only to a caller with an API key (the seller's, via
// createAuthHeaders): the buyer's own refund without the seller's claims,
// sent anonymously, is refused with 401 and moves nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { createRequire } from "node:module";
import { privateKeyToAccount } from "viem/accounts";
import { createPublicClient, http } from "viem";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, listen } from "../lib/harness.mjs";

const require = createRequire(import.meta.url);
const { BatchSettlementEvmScheme: ServerScheme } = require("@x402/evm/batch-settlement/server");
const { BatchSettlementEvmScheme: ClientScheme } = require("@x402/evm/batch-settlement/client");

const SETTLEMENT = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003";
const PRICE = 1000n;

const KEY = "interop-secret"; // X402_INTEROP_KEY in the harness
const payTo = newPayTo();

let caddy;
before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402_facilitator {
		api_key {env.X402_INTEROP_KEY} receivers ${payTo}
	}
}
`);
});
after(async () => caddy?.stop());

test("the published channel server settles deposit, vouchers, claim, settle and refund through our facilitator", async () => {
  const token = caddy.info.token;
  const network = "eip155:338";
  const auth = { Authorization: `Bearer ${KEY}` };
  const facilitator = new HTTPFacilitatorClient({ url: caddy.url + "/v2/x402",
    createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) });
  const scheme = new ServerScheme(payTo, { withdrawDelay: 900 });
  const server = new x402ResourceServer(facilitator).register(network, scheme);
  const app = express();
  app.use(paymentMiddleware({
    "GET /data": {
      accepts: { scheme: "batch-settlement", network, payTo,
        price: { amount: PRICE.toString(), asset: token.address, extra: { name: token.name, version: token.version } } },
      description: "interop: batch-settlement",
    },
  }, server));
  app.get("/data", (req, res) => res.json({ ok: true }));
  const seller = await listen(app);
  try {
    const buyer = privateKeyToAccount(caddy.info.buyers[3].privateKey);
    const chain = { id: 338, name: "devnet", nativeCurrency: { name: "CRO", symbol: "CRO", decimals: 18 }, rpcUrls: { default: { http: [caddy.info.rpcUrl] } } };
    const reader = createPublicClient({ chain, transport: http(caddy.info.rpcUrl) });
    const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m), readContract: (a) => reader.readContract(a) };
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network, asset: token.address, maxAmountPerPayment: "1000000" }] },
    }).register(network, new ClientScheme(signer, { depositPolicy: { depositMultiplier: 5 } }));
    const pay = wrapFetchWithPayment(fetch, client);

    const buyerBefore = await balanceOf(caddy.info, buyer.address);
    const escrowBefore = await balanceOf(caddy.info, SETTLEMENT);
    const n = 3;
    for (let i = 0; i < n; i++) {
      const res = await pay(seller.url + "/data");
      const body = await res.text();
      assert.equal(res.status, 200, `request ${i}: ${body}`);
    }
    const deposited = buyerBefore - (await balanceOf(caddy.info, buyer.address));
    assert.ok(deposited >= PRICE * BigInt(n), `deposited ${deposited}, below the ${n} requests served`);
    assert.equal((await balanceOf(caddy.info, SETTLEMENT)) - escrowBefore, deposited);

    // The buyer's own refund, without the seller's outstanding claims,
    // sent without a key: the published channel manager's refund payload
    // (captured), its claims removed and its amount the whole deposit.
    let captured;
    const capture = { settle: async (payload, req) => { captured = { payload, req }; throw new Error("captured"); },
      verify: (...a) => facilitator.verify(...a), getSupported: () => facilitator.getSupported() };
    await assert.rejects(scheme.createChannelManager(capture, network, token.address).refund(), /captured/);
    const { claimAuthorizerSignature, ...own } = captured.payload.payload;
    const attack = { ...captured.payload, payload: { ...own, claims: [], amount: deposited.toString() } };
    const heldBefore = await balanceOf(caddy.info, buyer.address);
    const escrowHeld = await balanceOf(caddy.info, SETTLEMENT);
    const anonymous = new HTTPFacilitatorClient({ url: caddy.url + "/v2/x402" });
    await assert.rejects(anonymous.settle(attack, captured.req), (e) => {
      assert.equal(e.statusCode, 401, e.message);
      assert.equal(e.errorReason, "unauthorized");
      assert.match(e.errorMessage, /^Not authorized: batch-settlement refund acts for the channel's receiver and is served only to callers with an API key: send Authorization: Bearer KEY/);
      return true;
    });
    assert.equal(await balanceOf(caddy.info, buyer.address), heldBefore, "an anonymous refund moved tokens to the buyer");
    assert.equal(await balanceOf(caddy.info, SETTLEMENT), escrowHeld, "an anonymous refund moved tokens out of the escrow");

    const manager = scheme.createChannelManager(facilitator, network, token.address);
    const cs = await manager.claimAndSettle();
    assert.ok(cs.settle?.transaction || cs.settle?.success !== false, JSON.stringify(cs, (k, v) => typeof v === "bigint" ? v.toString() : v));
    assert.equal(await balanceOf(caddy.info, payTo), PRICE * BigInt(n), "the seller gets price x requests");

    const refunds = await manager.refund();
    assert.ok(refunds.length >= 1, JSON.stringify(refunds));
    assert.equal(buyerBefore - (await balanceOf(caddy.info, buyer.address)), PRICE * BigInt(n), "the buyer paid exactly price x requests");
  } finally {
    await seller.close?.();
  }
});
