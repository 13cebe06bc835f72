// Our paywall in remote mode (facilitator <url>) against reference
// facilitators built from the published packages:
//  - an @x402/core 2.x facilitator (v2), paid by @x402/fetch 2.x;
//  - an x402 1.x facilitator (reference v1) on a devnet run as
//    base-sepolia, paid by x402-fetch 1.x;
// and against facilitators that fail (unreachable, 503, 429): the buyer
// gets a 500 with a JSON reason and no money moves.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import express from "express";
import { createWalletClient, createPublicClient, http, publicActions } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Facilitator } from "@x402/core/facilitator";
import { ExactEvmScheme as ExactEvmFacilitator } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { verify as verifyV1, settle as settleV1 } from "x402/facilitator";
import { wrapFetchWithPayment as wrapFetchV1, decodeXPaymentResponse } from "x402-fetch";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, freePort, listen, chainOf } from "../lib/harness.mjs";

// facilitatorApp serves verify, settle and supported under /facilitator,
// as the reference facilitators are mounted.
function facilitatorApp({ verify, settle, supported }) {
  const app = express();
  app.use(express.json());
  const wrap = (fn) => async (req, res) => {
    try {
      res.json(await fn(req.body));
    } catch (e) {
      res.status(500).json({ error: String(e && e.message) });
    }
  };
  app.post("/facilitator/verify", wrap((b) => verify(b.paymentPayload, b.paymentRequirements)));
  app.post("/facilitator/settle", wrap((b) => settle(b.paymentPayload, b.paymentRequirements)));
  app.get("/facilitator/supported", (req, res) => res.json(supported()));
  return app;
}

function signerClient(info, key) {
  const account = privateKeyToAccount(key);
  return createWalletClient({ account, chain: chainOf(info), transport: http(info.rpcUrl) }).extend(publicActions);
}

test("remote mode: our paywall settles through an @x402/core 2.x facilitator", async () => {
  const fport = await freePort();
  const payTo = newPayTo();
  const caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402 /paid {
		pay_to ${payTo}
		amount 10000
		network eip155:338
		facilitator http://127.0.0.1:${fport}/facilitator
	}
	respond /paid "paid content" 200
}
`);
  let fac;
  try {
    const wallet = signerClient(caddy.info, caddy.info.signer.privateKey);
    const core = new x402Facilitator().register("eip155:338",
      new ExactEvmFacilitator(toFacilitatorEvmSigner(Object.assign(wallet, { address: wallet.account.address }))));
    const seen = [];
    fac = await listenOn(fport, facilitatorApp({
      verify: (p, r) => (seen.push(["verify", p.x402Version]), core.verify(p, r)),
      settle: (p, r) => (seen.push(["settle", p.x402Version]), core.settle(p, r)),
      supported: () => core.getSupported(),
    }));

    const buyer = privateKeyToAccount(caddy.info.buyers[0].privateKey);
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
    });
    registerExactEvmScheme(client, { signer: buyer });
    const before = await balanceOf(caddy.info, payTo);
    const res = await wrapFetchWithPayment(fetch, client)(caddy.url + "/paid");
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.equal(body, "paid content");
    const pr = decodePaymentResponseHeader(res.headers.get("payment-response"));
    assert.equal(pr.success, true);
    assert.equal(pr.network, "eip155:338");
    assert.match(pr.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(await balanceOf(caddy.info, payTo) - before, 10000n);
    assert.deepEqual(seen, [["verify", 2], ["settle", 2]]);
  } finally {
    await fac?.close();
    await caddy.stop();
  }
});

test("remote mode: our paywall settles through an x402 1.x facilitator (base-sepolia)", async () => {
  const fport = await freePort();
  const payTo = newPayTo();
  const caddy = await startCaddy((p) => devnetGlobal(p, "chain_id 84532\n\t\t\tnetwork base-sepolia") + `
:${p.http} {
	x402 /paid {
		pay_to ${payTo}
		amount 10000
		network base-sepolia
		facilitator http://127.0.0.1:${fport}/facilitator
	}
	respond /paid "paid v1 content" 200
}
`);
  let fac;
  try {
    const wallet = signerClient(caddy.info, caddy.info.signer.privateKey);
    const reader = createPublicClient({ chain: chainOf(caddy.info), transport: http(caddy.info.rpcUrl) });
    const seen = [];
    fac = await listenOn(fport, facilitatorApp({
      verify: (p, r) => (seen.push(["verify", p.x402Version, !!p.payload.authorization]), verifyV1(reader, p, r)),
      settle: (p, r) => (seen.push(["settle", p.x402Version, !!p.payload.authorization]), settleV1(wallet, p, r)),
      supported: () => ({ kinds: [{ x402Version: 1, scheme: "exact", network: "base-sepolia" }] }),
    }));

    const account = privateKeyToAccount(caddy.info.buyers[1].privateKey);
    const buyer = createWalletClient({ account, chain: chainOf(caddy.info), transport: http(caddy.info.rpcUrl) });
    const before = await balanceOf(caddy.info, payTo);
    const res = await wrapFetchV1(fetch, buyer)(caddy.url + "/paid");
    const body = await res.text();
    assert.equal(res.status, 200, body);
    assert.equal(body, "paid v1 content");
    const pr = decodeXPaymentResponse(res.headers.get("x-payment-response"));
    assert.equal(pr.success, true);
    assert.match(pr.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(await balanceOf(caddy.info, payTo) - before, 10000n);
    assert.deepEqual(seen, [["verify", 1, true], ["settle", 1, true]]);
  } finally {
    await fac?.close();
    await caddy.stop();
  }
});

test("remote mode: a failing facilitator gives the buyer a JSON 500, and no money moves", async () => {
  const down = await freePort(); // nothing listens here
  const failing = await freePort();
  const payTo = newPayTo();
  const caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402 /down {
		pay_to ${payTo}
		amount 10000
		facilitator http://127.0.0.1:${down}/facilitator
		facilitator_dialect v2
	}
	x402 /unavailable {
		pay_to ${payTo}
		amount 10000
		facilitator http://127.0.0.1:${failing}/unavailable
		facilitator_dialect v2
	}
	x402 /limited {
		pay_to ${payTo}
		amount 10000
		facilitator http://127.0.0.1:${failing}/limited
		facilitator_dialect v2
		facilitator_header Authorization "Bearer {env.X402_INTEROP_KEY}"
	}
	respond "content" 200
}
`);
  const app = express();
  const auth = [];
  app.post("/unavailable/verify", (req, res) => res.status(503).send("upstream down"));
  app.post("/limited/verify", (req, res) => (auth.push(req.get("authorization")), res.status(429).set("Retry-After", "60").json({ error: "rate limited" })));
  const fac = await listenOn(failing, app);
  try {
    const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey);
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
    });
    registerExactEvmScheme(client, { signer: buyer });
    for (const path of ["/down", "/unavailable", "/limited"]) {
      const res = await wrapFetchWithPayment(fetch, client)(caddy.url + path);
      assert.equal(res.status, 500, path);
      assert.equal(res.headers.get("content-type"), "application/json");
      const body = await res.json();
      assert.equal(body.x402Version, 1);
      assert.match(body.error, /^the payment could not be verified: .+; try again shortly$/, path);
    }
    assert.deepEqual(auth, ["Bearer interop-secret"]);
    assert.equal(await balanceOf(caddy.info, payTo), 0n);
    const config = await (await fetch(`http://127.0.0.1:${caddy.ports.admin}/config/`)).text();
    assert.ok(!config.includes("interop-secret"), "the facilitator key is in the served config");
  } finally {
    await fac.close();
    await caddy.stop();
  }
});

async function listenOn(port, app) {
  const server = await new Promise((res) => {
    const s = app.listen(port, "127.0.0.1", () => res(s));
  });
  return { close: () => new Promise((r) => server.close(r)) };
}
