// The paywall sells by payment channel: `x402 { scheme batch-settlement }`
// with the embedded facilitator and the bbolt store, bought by the
// published client (@x402/fetch 2.27 with @x402/evm's channel client):
// one deposit, vouchers after it served without a chain round trip, a
// claim round that pays the seller exactly price x requests; a voucher
// sent again is not served again; requests racing one channel never
// charge more than what was served.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { createPublicClient, http } from "viem";
import { startCaddy, startDevnet, networkBlock, devnetGlobal, balanceOf, newPayTo, waitFor, decodeB64JSON } from "../lib/harness.mjs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";

const require = createRequire(import.meta.url);
const { BatchSettlementEvmScheme: ClientScheme } = require("@x402/evm/batch-settlement/client");

const SETTLEMENT = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003";
const PRICE = 1000n;
const network = "eip155:338";

let caddy;
const payTo = newPayTo();
const slowPayTo = newPayTo();
before(async () => {
  // The channel store is bbolt (a devnet alone keeps it in memory).
  caddy = await startCaddy((p) => devnetGlobal(p).replace(/\tx402 \{\n/, `\tx402 {\n\t\tredemptions ${p.infoFile}.redemptions.db\n`) + `
:${p.http} {
	handle /paid {
		x402 {
			pay_to ${payTo}
			amount ${PRICE}
			scheme batch-settlement
			claim_every 1s
		}
		respond "paid content"
	}
	handle /slow {
		x402 {
			pay_to ${slowPayTo}
			amount ${PRICE}
			scheme batch-settlement
			claim_every 5m
		}
		respond "paid content"
	}
	respond /healthcheck "ok"
}
`);
});
after(async () => caddy?.stop());

// buyerClient is the published channel client of devnet buyer i, over a
// fetch that records the payment headers it sends.
function buyerClient(i, sent, race = null) {
  const buyer = privateKeyToAccount(caddy.info.buyers[i].privateKey);
  const chain = { id: 338, name: "devnet", nativeCurrency: { name: "CRO", symbol: "CRO", decimals: 18 }, rpcUrls: { default: { http: [caddy.info.rpcUrl] } } };
  const reader = createPublicClient({ chain, transport: http(caddy.info.rpcUrl) });
  const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m), readContract: (a) => reader.readContract(a) };
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network, asset: caddy.info.token.address, maxAmountPerPayment: "1000000" }] },
  }).register(network, new ClientScheme(signer, { depositPolicy: { depositMultiplier: 20 } }));
  const recording = (input, init) => {
    const req = new Request(input, init);
    const h = req.headers.get("payment-signature");
    if (h) sent.push(h);
    if (h && race?.armed) {
      // The same payment twice at once, as two instances would see it.
      race.armed = false;
      return Promise.all([fetch(req.clone()), fetch(req)]).then((rs) => {
        race.statuses = rs.map((r) => r.status).sort();
        return rs.find((r) => r.status === 200) ?? rs[0];
      });
    }
    return fetch(req);
  };
  return { buyer, pay: wrapFetchWithPayment(recording, client) };
}

test("the published channel client buys N requests: one deposit, vouchers, the seller gets exactly price x N", async () => {
  const sent = [];
  const { buyer, pay } = buyerClient(4, sent);
  const url = caddy.url + "/paid";

  const unpaid = await fetch(url);
  assert.equal(unpaid.status, 402);
  const pr = decodeB64JSON(unpaid.headers.get("payment-required"));
  const accept = pr.accepts[0];
  assert.equal(accept.scheme, "batch-settlement");
  assert.equal(accept.amount, PRICE.toString());
  assert.equal(accept.extra.withdrawDelay, 900);
  assert.equal(accept.extra.assetTransferMethod, "eip3009");
  assert.equal(accept.extra.name, caddy.info.token.name);
  assert.equal(accept.extra.version, caddy.info.token.version);
  assert.match(accept.extra.receiverAuthorizer, /^0x[0-9a-fA-F]{40}$/);

  const buyerBefore = await balanceOf(caddy.info, buyer.address);
  const escrowBefore = await balanceOf(caddy.info, SETTLEMENT);
  const n = 10;
  let charged = [];
  for (let i = 0; i < n; i++) {
    const res = await pay(url);
    const body = await res.text();
    assert.equal(res.status, 200, `request ${i}: ${body}`);
    assert.equal(body, "paid content");
    const receipt = decodeB64JSON(res.headers.get("payment-response"));
    assert.equal(receipt.success, true);
    assert.equal(receipt.extra.chargedAmount, PRICE.toString());
    charged.push(receipt.extra.channelState.chargedCumulativeAmount);
    if (i === 0) assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/, "the deposit names its transaction");
    else assert.equal(receipt.transaction, "", "a voucher is served without a transaction");
  }
  assert.deepEqual(charged, Array.from({ length: n }, (_, i) => (PRICE * BigInt(i + 1)).toString()));
  const deposited = buyerBefore - (await balanceOf(caddy.info, buyer.address));
  assert.equal(deposited, PRICE * 20n, "one deposit (20 x the price), no other transfer from the buyer");
  assert.equal((await balanceOf(caddy.info, SETTLEMENT)) - escrowBefore, deposited);
  // Each request sent one payment: the deposit, then vouchers.
  assert.equal(sent.length, n);
  assert.equal(decodeB64JSON(sent[0]).payload.type, "deposit");
  for (const h of sent.slice(1)) assert.equal(decodeB64JSON(h).payload.type, "voucher");

  // A voucher sent again is not served again: the corrective 402 says
  // where the channel stands.
  const again = await fetch(url, { headers: { "PAYMENT-SIGNATURE": sent[n - 1] } });
  assert.equal(again.status, 402);
  const corrective = decodeB64JSON(again.headers.get("payment-required"));
  assert.equal(corrective.error, "invalid_batch_settlement_evm_cumulative_amount_mismatch");
  assert.equal(corrective.accepts[0].extra.channelState.chargedCumulativeAmount, (PRICE * BigInt(n)).toString());
  assert.equal(corrective.accepts[0].extra.voucherState.signedMaxClaimable, (PRICE * BigInt(n)).toString());

  // The claim round (claim_every 1s) pays the seller price x N.
  await waitFor(async () => (await balanceOf(caddy.info, payTo)) === PRICE * BigInt(n), "the claim round to pay the seller", 30000);
  assert.equal(await balanceOf(caddy.info, payTo), PRICE * BigInt(n));
});

test("requests racing one channel never charge more than what was served", async () => {
  const sent = [];
  const race = { armed: false };
  const { pay } = buyerClient(3, sent, race);
  const paid = caddy.url + "/paid";
  const sellerBefore = await balanceOf(caddy.info, payTo);
  const first = await pay(paid); // the deposit
  assert.equal(first.status, 200, await first.text());
  let served = 1;
  // A fresh voucher sent twice at once: one is served, the other refused.
  race.armed = true;
  const r = await pay(paid);
  assert.equal(r.status, 200, await r.text());
  assert.deepEqual(race.statuses, [200, 402], "one voucher is charged once");
  served++;
  // Purchases racing from the one client: each served request is charged once.
  const results = await Promise.all(Array.from({ length: 6 }, () => pay(paid).then(async (r) => ({ status: r.status, body: await r.text() }))));
  for (const r of results) assert.ok(r.status === 200 || r.status === 402, JSON.stringify(r));
  served += results.filter((r) => r.status === 200).length;
  await waitFor(async () => (await balanceOf(caddy.info, payTo)) - sellerBefore === PRICE * BigInt(served), "the claim round", 30000).catch(() => {});
  assert.equal((await balanceOf(caddy.info, payTo)) - sellerBefore, PRICE * BigInt(served), `served ${served}`);
});

test("a config reload (the route's Cleanup, as at graceful stop) claims what was charged", async () => {
  const { pay } = buyerClient(2, []);
  const url = caddy.url + "/slow";
  for (let i = 0; i < 3; i++) {
    const res = await pay(url);
    assert.equal(res.status, 200, await res.text());
  }
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await balanceOf(caddy.info, slowPayTo), 0n, "claim_every 5m: nothing claimed yet");
  const res = await fetch(`http://127.0.0.1:${caddy.ports.admin}/load`, {
    method: "POST",
    headers: { "Content-Type": "text/caddyfile", "Cache-Control": "must-revalidate", Origin: `http://127.0.0.1:${caddy.ports.admin}` },
    body: readFileSync(join(caddy.dir, "Caddyfile"), "utf8"),
  });
  assert.equal(res.status, 200, await res.text());
  await waitFor(async () => (await balanceOf(caddy.info, slowPayTo)) === PRICE * 3n, "the last claim round", 30000);
  // The channel goes on under the new config.
  const more = await pay(url);
  assert.equal(more.status, 200, await more.text());
});

test("kill -9 between requests loses nothing: the restarted paywall serves the next voucher and claims every one at graceful stop", async () => {
  const chain = await startDevnet({ chainId: 84532, network: "base-sepolia", token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" });
  const storeDir = mkdtempSync(join(tmpdir(), "x402-interop-channels-"));
  const seller = newPayTo();
  const config = (p) => `{
	admin 127.0.0.1:${p.admin}
	x402 {
		redemptions ${storeDir}/redemptions.db
		${networkBlock(chain.info, "X402_KILL_SIGNER")}
	}
}
:${p.http} {
	handle /paid {
		x402 {
			pay_to ${seller}
			amount ${PRICE}
			network base-sepolia
			scheme batch-settlement
			claim_every 5m
		}
		respond "paid content"
	}
	respond /healthcheck "ok"
}
`;
  let shop = await startCaddy(config);
  try {
    const info = chain.info;
    const buyer = privateKeyToAccount(info.buyers[0].privateKey);
    const net = "eip155:84532";
    const viemChain = { id: 84532, name: "devnet-b", nativeCurrency: { name: "ETH", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [info.rpcUrl] } } };
    const reader = createPublicClient({ chain: viemChain, transport: http(info.rpcUrl) });
    const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m), readContract: (a) => reader.readContract(a) };
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: net, asset: info.token.address, maxAmountPerPayment: "1000000" }] },
    }).register(net, new ClientScheme(signer, { depositPolicy: { depositMultiplier: 20 } }));
    const pay = wrapFetchWithPayment(fetch, client);
    for (let i = 0; i < 3; i++) {
      const res = await pay(shop.url + "/paid");
      assert.equal(res.status, 200, await res.text());
    }
    await shop.kill();
    assert.equal(await balanceOf(info, seller), 0n, "nothing claimed before the kill (claim_every 5m)");
    shop = await startCaddy(config);
    const res = await pay(shop.url + "/paid");
    assert.equal(res.status, 200, await res.text());
    const receipt = decodeB64JSON(res.headers.get("payment-response"));
    assert.equal(receipt.extra.channelState.chargedCumulativeAmount, (PRICE * 4n).toString(), "the record survived the kill");
    assert.equal(receipt.transaction, "", "a voucher, not a new deposit");
    await shop.stop(); // graceful: the last claim round
    assert.equal(await balanceOf(info, seller), PRICE * 4n, "the seller gets every voucher served, across the kill");
  } finally {
    await shop.stop();
    await chain.stop();
  }
});
