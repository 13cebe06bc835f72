// Issue 26's done-when, with the published client (@x402/fetch 2.27 +
// @x402/evm's BatchSettlementEvmScheme): four buyers buy 1,000 requests at
// once from our paywall (`scheme batch-settlement`) on a devnet of its own:
// one deposit per buyer, the seller gets exactly price x requests served,
// the gas payer sends one deposit per buyer plus a claim and a settle per
// claim round (counted on chain, transaction by transaction); a buyer that
// lost its channel record recovers through the corrective 402 and is
// charged once per request; vouchers (and a deposit) sent again are not
// served again; kill -9 between requests loses nothing. Then the same with
// `storage postgres` across three instances.
import { test } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { createRequire } from "node:module";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { privateKeyToAccount } from "viem/accounts";
import { createPublicClient, http, decodeFunctionData } from "viem";
import {
  startCaddy, startDevnet, startPostgres, networkBlock, balanceOf, newPayTo, waitFor, decodeB64JSON,
  chainOf, transactionsFrom, nonceOf, blockNumber,
} from "../lib/harness.mjs";

const require = createRequire(import.meta.url);
const { BatchSettlementEvmScheme: ClientScheme } = require("@x402/evm/batch-settlement/client");

const SETTLEMENT = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003";
const settlementABI = JSON.parse(readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), "../../../facilitator/batchsettlement/batch/abi.json"), "utf8"));
const PRICE = 1000n;
const BUYERS = 4;
const PER_BUYER = 250;
// Each buyer deposits 300 x the price once: room for its 250 requests.
const MULTIPLIER = 300;
const DEPOSIT = PRICE * BigInt(MULTIPLIER);
const MISMATCH = "invalid_batch_settlement_evm_cumulative_amount_mismatch";

// channelBuyer is devnet buyer i paying with the published channel client,
// over a fetch that records each payment header sent and its answer's
// status. fresh() replaces the client by one with an empty channel record
// store: the same key, its record lost.
function channelBuyer(info, i) {
  const net = `eip155:${info.chainId}`;
  const account = privateKeyToAccount(info.buyers[i].privateKey);
  const reader = createPublicClient({ chain: chainOf(info), transport: http(info.rpcUrl) });
  const signer = { address: account.address, signTypedData: (m) => account.signTypedData(m), readContract: (a) => reader.readContract(a) };
  const b = { i, account, sent: [], charged: [] };
  const recording = async (input, init) => {
    const req = new Request(input, init);
    const h = req.headers.get("payment-signature");
    const res = await fetch(req);
    if (h) b.sent.push({ header: h, status: res.status });
    return res;
  };
  b.fresh = () => {
    b.scheme = new ClientScheme(signer, { depositPolicy: { depositMultiplier: MULTIPLIER } });
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: net, asset: info.token.address, maxAmountPerPayment: "1000000" }] },
    }).register(net, b.scheme);
    b.pay = wrapFetchWithPayment(recording, client);
  };
  b.fresh();
  return b;
}

// buy makes buyer b buy n requests, the k-th at urlOf(k), each answered
// 200 with the content and a receipt charging the price once; before(k),
// when given, runs before the k-th.
async function buy(b, n, urlOf, before) {
  for (let k = 0; k < n; k++) {
    await before?.(k);
    const url = urlOf(k);
    const res = await b.pay(url);
    const body = await res.text();
    assert.equal(res.status, 200, `buyer ${b.i}, request ${b.charged.length + 1} at ${url}: ${body}`);
    assert.equal(body, "paid content");
    const receipt = decodeB64JSON(res.headers.get("payment-response"));
    assert.equal(receipt.success, true);
    assert.equal(receipt.extra.chargedAmount, PRICE.toString());
    b.charged.push(BigInt(receipt.extra.channelState.chargedCumulativeAmount));
  }
}

// buyAll runs the buyers at once, n requests each.
const buyAll = (buyers, n, urlOf, before) => Promise.all(buyers.map((b) => buy(b, n, (k) => urlOf(b, k), before && ((k) => before(b, k)))));

// served is how many requests the buyers were served.
const served = (buyers) => buyers.reduce((n, b) => n + b.charged.length, 0);

// resendRefused sends a voucher captured earlier again: it gets the
// corrective 402 naming what the channel is charged now, and no content.
async function resendRefused(url, header, charged) {
  const pr = await refused(url, header);
  assert.equal(pr.error, MISMATCH);
  assert.equal(pr.accepts[0].extra.channelState.chargedCumulativeAmount, charged.toString());
}

// depositResent sends a deposit again: the facilitator's check refuses it
// (its voucher is below the claimed total once a round claimed, else its
// authorization is spent: the simulation fails); no content, nothing
// deposited (the gas payer's transactions are counted after the run).
async function depositResent(url, header) {
  const pr = await refused(url, header);
  assert.ok(["invalid_batch_settlement_evm_cumulative_below_claimed", "invalid_batch_settlement_evm_deposit_simulation_failed"].includes(pr.error), pr.error);
}

// refused sends a payment header and expects a 402 without content or
// receipt; it returns the 402's PAYMENT-REQUIRED.
async function refused(url, header) {
  const res = await fetch(url, { headers: { "PAYMENT-SIGNATURE": header } });
  const body = await res.text();
  assert.equal(res.status, 402, body);
  assert.notEqual(body, "paid content");
  assert.equal(res.headers.get("payment-response"), null);
  return decodeB64JSON(res.headers.get("payment-required"));
}

// classify names each transaction of the gas payer by its call on the
// settlement contract (deposit, claimWithSignature, settle, ...).
function classify(txs) {
  return txs.map((tx) => {
    if (tx.to?.toLowerCase() !== SETTLEMENT.toLowerCase()) return `other:${tx.to}`;
    try {
      return decodeFunctionData({ abi: settlementABI, data: tx.input }).functionName;
    } catch {
      return "unknown";
    }
  });
}

// assertMoney checks what the buyers paid and the seller got: each buyer
// deposited once and was charged exactly the price per request served, in
// order, with no gap or repeat; the seller got price x requests served.
async function assertMoney(info, buyers, before, seller) {
  for (const b of buyers) {
    assert.deepEqual(b.charged, Array.from({ length: PER_BUYER }, (_, k) => PRICE * BigInt(k + 1)), `buyer ${b.i} charged once per request`);
    assert.equal(before.buyers[b.i] - (await balanceOf(info, b.account.address)), DEPOSIT, `buyer ${b.i}: one deposit, nothing else`);
  }
  assert.equal(served(buyers), BUYERS * PER_BUYER);
  assert.equal(await balanceOf(info, seller), PRICE * BigInt(served(buyers)), "the seller gets price x requests served");
  // What is not claimed stays in the channels: the deposits less the charges.
  assert.equal((await balanceOf(info, SETTLEMENT)) - before.escrow, BigInt(BUYERS) * DEPOSIT - PRICE * BigInt(served(buyers)));
}

// moneyBefore reads the balances the run moves.
async function moneyBefore(info, buyers) {
  const m = { buyers: {}, escrow: await balanceOf(info, SETTLEMENT) };
  for (const b of buyers) m.buyers[b.i] = await balanceOf(info, b.account.address);
  return m;
}

// channelCaddyfile is one instance's config: the devnet's network with its
// signer, the store (bbolt file or PostgreSQL), a channel route.
function channelCaddyfile(info, storage, seller, every) {
  return (p) => `{
	admin 127.0.0.1:${p.admin}
	x402 {
		${storage}
		${networkBlock(info, "X402_1000_SIGNER")}
	}
}
:${p.http} {
	handle /paid {
		x402 {
			pay_to ${seller}
			amount ${PRICE}
			network ${info.network}
			scheme batch-settlement
			claim_every ${every}
		}
		respond "paid content"
	}
	respond /healthcheck "ok"
}
`;
}

// reload loads a Caddyfile into a running instance (the old route's
// Cleanup runs its last claim round).
async function reload(shop, caddyfile) {
  const res = await fetch(`http://127.0.0.1:${shop.ports.admin}/load`, {
    method: "POST",
    headers: { "Content-Type": "text/caddyfile", "Cache-Control": "must-revalidate", Origin: `http://127.0.0.1:${shop.ports.admin}` },
    body: caddyfile,
  });
  assert.equal(res.status, 200, await res.text());
}

// claimRounds counts the claim rounds an instance's log reports.
const claimRounds = (log) => (log.match(/claim round: claimed/g) ?? []).length;

test("1,000 requests by four published clients: one deposit each, a claim and a settle per round, exact money across a lost record and kill -9 (bbolt)", async (t) => {
  const started = Date.now();
  const chain = await startDevnet({ chainId: 84532, network: "base-sepolia", token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" });
  const info = chain.info;
  const storeDir = mkdtempSync(join(tmpdir(), "x402-interop-1000-"));
  const seller = newPayTo();
  const storage = `redemptions ${storeDir}/redemptions.db`;
  const fast = channelCaddyfile(info, storage, seller, "1s");
  const slow = channelCaddyfile(info, storage, seller, "5m");
  let shop = await startCaddy(fast);
  const logs = [];
  try {
    const buyers = Array.from({ length: BUYERS }, (_, i) => channelBuyer(info, i));
    const url = () => shop.url + "/paid";
    const before = await moneyBefore(info, buyers);
    const nonce0 = await nonceOf(info, info.signer.address);
    const block0 = await blockNumber(info);

    // 1. 100 requests each, at once; claim rounds every second meanwhile
    // (at least one by the end of this step).
    await buyAll(buyers, 100, url);
    assert.equal(served(buyers), 400);
    await waitFor(async () => (await balanceOf(info, seller)) > 0n, "a claim round during the run", 30000);
    for (const b of buyers) {
      assert.equal(decodeB64JSON(b.sent[0].header).payload.type, "deposit");
      assert.equal(b.sent.filter((s) => decodeB64JSON(s.header).payload.type === "deposit").length, 1, `buyer ${b.i}: one deposit`);
    }

    // 2. Between requests, the rounds slow to 5 m by a reload, whose last
    // round claims all that was charged.
    await reload(shop, slow({ ...shop.ports }));
    await waitFor(async () => (await balanceOf(info, seller)) === PRICE * 400n, "the reload's last round to pay the seller", 30000);

    // 3. 25 more each (charged, not claimed); buyer 0 loses its channel
    // record after 10 of them: its client reads the chain (claimed 100),
    // signs a voucher on that base, gets the corrective 402 with the
    // channel's state and its own last voucher, and pays again from there.
    await buyAll(buyers, 25, url, (b, k) => b.i === 0 && k === 10 && b.fresh());
    assert.equal(served(buyers), 500);
    const corrected = buyers[0].sent.filter((s) => s.status === 402);
    assert.equal(corrected.length, 1, "buyer 0: one corrective 402, then served");
    assert.equal(decodeB64JSON(corrected[0].header).payload.voucher.maxClaimableAmount, (PRICE * 101n).toString(), "signed from the chain's claimed total");
    for (const b of buyers.slice(1)) assert.equal(b.sent.filter((s) => s.status !== 200).length, 0, `buyer ${b.i}: every payment served`);

    // 4. Payments sent again are not served again: buyer 1's deposit,
    // buyer 2's last voucher, an old voucher of buyer 3.
    await depositResent(url(), buyers[1].sent[0].header);
    await resendRefused(url(), buyers[2].sent.at(-1).header, PRICE * 125n);
    await resendRefused(url(), buyers[3].sent[50].header, PRICE * 125n);

    // 5. kill -9 between requests, 100 requests charged and not claimed.
    assert.equal(await balanceOf(info, seller), PRICE * 400n, "nothing claimed since the reload (claim_every 5m)");
    await shop.kill();
    logs.push(shop.log());
    shop = await startCaddy(fast);

    // 6. The rest, 125 each, on the restarted instance (rounds every second).
    await buyAll(buyers, 125, url);
    assert.equal(served(buyers), BUYERS * PER_BUYER);
    await shop.stop(); // graceful: the last claim round
    logs.push(shop.log());

    await assertMoney(info, buyers, before, seller);

    // The gas payer: one deposit per buyer, then per claim round one
    // claim and one settle, nothing else; every transaction succeeded.
    const txs = await transactionsFrom(info, info.signer.address, block0);
    const kinds = classify(txs);
    const nonce1 = await nonceOf(info, info.signer.address);
    assert.equal(nonce1 - nonce0, txs.length, "every transaction of the gas payer is in the blocks scanned");
    for (const tx of txs) assert.equal(tx.status, "success", `transaction ${tx.hash}`);
    assert.equal(kinds.filter((k) => k === "deposit").length, BUYERS, `one deposit per buyer: ${kinds}`);
    const rounds = claimRounds(logs.join("\n"));
    const rest = kinds.filter((k) => k !== "deposit");
    assert.deepEqual(rest, Array.from({ length: rounds }, () => ["claimWithSignature", "settle"]).flat(), `a claim then a settle per round: ${kinds}`);
    // At least the round of step 1 and one claiming what was charged before the kill.
    assert.ok(rounds >= 2, `claim rounds: ${rounds}`);
    assert.equal(nonce1 - nonce0, BUYERS + 2 * rounds);
    t.diagnostic(`${served(buyers)} requests, ${txs.length} gas payer transactions (${BUYERS} deposits, ${rounds} claim rounds), ${((Date.now() - started) / 1000).toFixed(1)} s`);

    // A cooperative refund (the published client's refund(url)) returns
    // the deposit minus what was charged.
    await t.test("a cooperative refund returns deposit minus charged", async () => {
      shop = await startCaddy(fast);
      const b = buyers[1];
      const was = await balanceOf(info, b.account.address);
      const answer = await b.scheme.refund(url());
      assert.equal(answer.success, true, JSON.stringify(answer));
      assert.equal((await balanceOf(info, b.account.address)) - was, DEPOSIT - PRICE * BigInt(PER_BUYER));
      assert.equal(await balanceOf(info, seller), PRICE * BigInt(served(buyers)), "the seller keeps what was served");
    });
  } finally {
    await shop.stop();
    await chain.stop();
  }
});

test("the same across three instances on one PostgreSQL (storage postgres)", async (t) => {
  const started = Date.now();
  const pg = await startPostgres();
  if (!pg) {
    t.skip("no PostgreSQL server binaries (initdb, postgres): apt-get install postgresql, or set PGTEST_BIN");
    return;
  }
  const chain = await startDevnet({ chainId: 84532, network: "base-sepolia", token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" });
  const info = chain.info;
  process.env.X402_1000_DATABASE_URL = pg.url;
  const seller = newPayTo();
  const config = channelCaddyfile(info, "storage postgres {env.X402_1000_DATABASE_URL}", seller, "1s");
  const shops = [];
  const logs = [];
  try {
    // One at a time: the first applies the schema.
    for (let i = 0; i < 3; i++) shops.push(await startCaddy(config));
    const buyers = Array.from({ length: BUYERS }, (_, i) => channelBuyer(info, i));
    const before = await moneyBefore(info, buyers);
    const nonce0 = await nonceOf(info, info.signer.address);
    const block0 = await blockNumber(info);
    let live = [0, 1, 2];
    // Each buyer's requests go round the live instances in turn: each
    // voucher lands on another instance than the one before.
    const urlOf = (b, k) => shops[live[(k + b.i) % live.length]].url + "/paid";

    // 1. 100 requests each across the three.
    await buyAll(buyers, 100, urlOf);
    for (const b of buyers) assert.equal(b.sent.filter((s) => decodeB64JSON(s.header).payload.type === "deposit").length, 1, `buyer ${b.i}: one deposit`);

    // 2. Between requests: buyer 0 loses its record; payments sent again
    // to another instance are refused; instance B is killed (kill -9).
    buyers[0].fresh();
    await depositResent(shops[2].url + "/paid", buyers[1].sent[0].header);
    await resendRefused(shops[0].url + "/paid", buyers[2].sent.at(-1).header, PRICE * 100n);
    await resendRefused(shops[1].url + "/paid", buyers[3].sent[50].header, PRICE * 100n);
    await shops[1].kill();
    logs.push(shops[1].log());
    live = [0, 2];

    // 3. 75 each on A and C, then B again and 75 each on the three.
    await buyAll(buyers, 75, urlOf);
    shops[1] = await startCaddy(config);
    live = [0, 1, 2];
    await buyAll(buyers, 75, urlOf);
    assert.equal(served(buyers), BUYERS * PER_BUYER);
    for (const s of shops) {
      await s.stop();
      logs.push(s.log());
    }

    await assertMoney(info, buyers, before, seller);

    const txs = await transactionsFrom(info, info.signer.address, block0);
    const kinds = classify(txs);
    assert.equal(kinds.filter((k) => k === "deposit").length, BUYERS, `one deposit per buyer, across the instances: ${kinds}`);
    assert.equal((await nonceOf(info, info.signer.address)) - nonce0, txs.length);
    const rounds = claimRounds(logs.join("\n"));
    t.diagnostic(`${served(buyers)} requests on 3 instances, ${txs.length} gas payer transactions: ${kinds.join(" ")}; ${rounds} claim rounds logged; ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // One instance at a time claims (the claiming role in the shared
    // store): one claim and one settle per round, whichever instance.
    await t.test("one claim and one settle per claim round across the instances", () => {
      for (const tx of txs) assert.equal(tx.status, "success", `transaction ${tx.hash}`);
      const rest = kinds.filter((k) => k !== "deposit");
      assert.deepEqual(rest, Array.from({ length: rounds }, () => ["claimWithSignature", "settle"]).flat(), `a claim then a settle per round: ${kinds}`);
    });
  } finally {
    for (const s of shops) await s.stop();
    await chain.stop();
    await pg.stop();
    delete process.env.X402_1000_DATABASE_URL;
  }
});

test("a paywall whose store lost a channel (its charges not claimed) sends the published client back to the chain, and it pays on", async () => {
  const chain = await startDevnet({ chainId: 84532, network: "base-sepolia", token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" });
  const info = chain.info;
  const storeDir = mkdtempSync(join(tmpdir(), "x402-interop-lost-"));
  const seller = newPayTo();
  let shop = await startCaddy(channelCaddyfile(info, `redemptions ${storeDir}/first.db`, seller, "5m"));
  try {
    const b = channelBuyer(info, 0);
    await buy(b, 3, () => shop.url + "/paid");
    await shop.kill();
    // The same channel, on an instance whose store never saw it (a lost
    // disk, a memory store restarted): its three charges are gone with it.
    shop = await startCaddy(channelCaddyfile(info, `redemptions ${storeDir}/second.db`, seller, "5m"));
    const res = await b.pay(shop.url + "/paid");
    assert.equal(res.status, 200, await res.text());
    const receipt = decodeB64JSON(res.headers.get("payment-response"));
    assert.equal(receipt.extra.channelState.chargedCumulativeAmount, PRICE.toString(), "charged from the chain's claimed total (0)");
    assert.equal(receipt.transaction, "", "a voucher, not a second deposit");
    const corrective = decodeB64JSON(b.sent.at(-2).header);
    assert.equal(b.sent.at(-2).status, 402);
    assert.equal(corrective.payload.voucher.maxClaimableAmount, (PRICE * 4n).toString(), "the client signed from its own record first");
    await shop.stop();
    assert.equal(await balanceOf(info, seller), PRICE, "the seller claims what the store it has charged");
  } finally {
    await shop.stop();
    await chain.stop();
  }
});
