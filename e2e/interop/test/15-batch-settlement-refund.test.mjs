// Cooperative refunds on the channel paywall (`x402 { scheme
// batch-settlement }`), with the published client (@x402/evm 2.27's
// BatchSettlementEvmScheme): its refund(url) gets deposit - charged back
// in one transaction that also claims what was charged and not claimed;
// the seller gets the charged amount once; the same refund sent again
// pays nothing; a deposit opens the refunded channel again; a channel
// idle for refund_idle is refunded without being asked.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import { createPublicClient, http, parseAbi } from "viem";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, waitFor, decodeB64JSON, chainOf } from "../lib/harness.mjs";

const require = createRequire(import.meta.url);
const { BatchSettlementEvmScheme: ClientScheme } = require("@x402/evm/batch-settlement/client");

const SETTLEMENT = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003";
const PRICE = 1000n;
const network = "eip155:338";
const settlementAbi = parseAbi([
  "function channels(bytes32) view returns (uint128 balance, uint128 totalClaimed)",
  "function refundNonce(bytes32) view returns (uint256)",
]);

let caddy;
const slowPayTo = newPayTo();
const idlePayTo = newPayTo();
before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p).replace(/\tx402 \{\n/, `\tx402 {\n\t\tredemptions ${p.infoFile}.redemptions.db\n`) + `
:${p.http} {
	handle /slow {
		x402 {
			pay_to ${slowPayTo}
			amount ${PRICE}
			scheme batch-settlement
			claim_every 5m
		}
		respond "paid content"
	}
	handle /idle {
		x402 {
			pay_to ${idlePayTo}
			amount ${PRICE}
			scheme batch-settlement
			claim_every 1s
			refund_idle 2s
		}
		respond "paid content"
	}
	respond /healthcheck "ok"
}
`);
});
after(async () => caddy?.stop());

// buyer is devnet buyer i with the published channel client (its scheme,
// for refund) over a fetch that records the payment headers it sends.
function buyer(i, sent) {
  const account = privateKeyToAccount(caddy.info.buyers[i].privateKey);
  const reader = createPublicClient({ chain: chainOf(caddy.info), transport: http(caddy.info.rpcUrl) });
  const signer = { address: account.address, signTypedData: (m) => account.signTypedData(m), readContract: (a) => reader.readContract(a) };
  const scheme = new ClientScheme(signer, { depositPolicy: { depositMultiplier: 20 } });
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network, asset: caddy.info.token.address, maxAmountPerPayment: "1000000" }] },
  }).register(network, scheme);
  const recording = (input, init) => {
    const req = new Request(input, init);
    const h = req.headers.get("payment-signature");
    if (h) sent.push(h);
    return fetch(req);
  };
  return { account, scheme, reader, recording, pay: wrapFetchWithPayment(recording, client) };
}

async function buy(pay, url, n) {
  for (let i = 0; i < n; i++) {
    const res = await pay(url);
    assert.equal(res.status, 200, await res.text());
  }
}

async function reload() {
  const res = await fetch(`http://127.0.0.1:${caddy.ports.admin}/load`, {
    method: "POST",
    headers: { "Content-Type": "text/caddyfile", "Cache-Control": "must-revalidate", Origin: `http://127.0.0.1:${caddy.ports.admin}` },
    body: readFileSync(join(caddy.dir, "Caddyfile"), "utf8"),
  });
  assert.equal(res.status, 200, await res.text());
}

test("the published client's refund(url): deposit - charged back, the unclaimed vouchers claimed first, charged to the seller once, sent again pays nothing", async () => {
  const sent = [];
  const b = buyer(0, sent);
  const url = caddy.url + "/slow";
  const start = await balanceOf(caddy.info, b.account.address);
  await buy(b.pay, url, 3);
  assert.equal(start - (await balanceOf(caddy.info, b.account.address)), PRICE * 20n, "one deposit of 20 x the price");
  const channelId = decodeB64JSON(sent[0]).payload.voucher.channelId;

  const before = await balanceOf(caddy.info, b.account.address);
  const refundSent = [];
  const result = await b.scheme.refund(url, { fetch: (input, init) => { const r = new Request(input, init); const h = r.headers.get("payment-signature"); if (h) refundSent.push(h); return fetch(r); } });
  assert.equal(result.success, true);
  assert.match(result.transaction, /^0x[0-9a-f]{64}$/);
  assert.equal(result.amount, (PRICE * 17n).toString());
  assert.equal(result.extra.channelState.refundNonce, "1");
  assert.equal(result.extra.channelState.chargedCumulativeAmount, (PRICE * 3n).toString());
  assert.equal((await balanceOf(caddy.info, b.account.address)) - before, PRICE * 17n, "deposit - charged back to the payer");
  // claim_every 5m: the refund itself claimed the three requests.
  const [balance, totalClaimed] = await b.reader.readContract({ address: SETTLEMENT, abi: settlementAbi, functionName: "channels", args: [channelId] });
  assert.equal(totalClaimed, PRICE * 3n);
  assert.equal(balance, PRICE * 3n);
  assert.equal(await balanceOf(caddy.info, slowPayTo), 0n, "claimed, not settled yet");

  // The same refund sent again: refused, nothing moves.
  assert.equal(refundSent.length, 1);
  const again = await fetch(url, { headers: { "PAYMENT-SIGNATURE": refundSent[0] } });
  assert.equal(again.status, 402);
  assert.equal(decodeB64JSON(again.headers.get("payment-required")).error, "invalid_batch_settlement_evm_refund_no_balance");
  assert.equal((await balanceOf(caddy.info, b.account.address)) - before, PRICE * 17n);
  // A voucher of the refunded channel is refused.
  const late = await fetch(url, { headers: { "PAYMENT-SIGNATURE": sent[sent.length - 1] } });
  assert.equal(late.status, 402);

  // The route's last round (a reload) settles what the refund claimed, once.
  await reload();
  await waitFor(async () => (await balanceOf(caddy.info, slowPayTo)) === PRICE * 3n, "the settle of the refund's claims", 30000);
  await reload();
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await balanceOf(caddy.info, slowPayTo), PRICE * 3n, "settled once");

  // The client buys again: a deposit opens the refunded channel, and a
  // second refund carries the next refund nonce.
  await buy(b.pay, url, 1);
  const before2 = await balanceOf(caddy.info, b.account.address);
  const second = await b.scheme.refund(url);
  assert.equal(second.success, true);
  assert.equal(second.extra.channelState.refundNonce, "2");
  assert.equal(await b.reader.readContract({ address: SETTLEMENT, abi: settlementAbi, functionName: "refundNonce", args: [channelId] }), 2n);
  assert.equal((await balanceOf(caddy.info, b.account.address)) - before2, PRICE * 19n, "the second deposit minus the one request");
});

test("a channel idle for refund_idle is refunded: deposit - charged to the payer, charged to the seller", async () => {
  const b = buyer(1, []);
  const url = caddy.url + "/idle";
  const start = await balanceOf(caddy.info, b.account.address);
  await buy(b.pay, url, 2);
  const afterBuying = await balanceOf(caddy.info, b.account.address);
  assert.equal(start - afterBuying, PRICE * 20n);
  await waitFor(async () => (await balanceOf(caddy.info, b.account.address)) === afterBuying + PRICE * 18n, "the idle refund", 30000);
  await waitFor(async () => (await balanceOf(caddy.info, idlePayTo)) === PRICE * 2n, "the seller's settle", 30000);
  await new Promise((r) => setTimeout(r, 2500));
  assert.equal(await balanceOf(caddy.info, b.account.address), afterBuying + PRICE * 18n, "refunded once");
  assert.equal(await balanceOf(caddy.info, idlePayTo), PRICE * 2n, "paid once");
});
