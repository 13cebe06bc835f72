// One route, two networks on two development chains (issue 15):
//  - cronos-testnet (eip155:338, Caddy's embedded devnet) and base-sepolia
//    (eip155:84532, a second devnet with its own token): @x402/fetch 2.x
//    registered only for eip155:84532 pays on it, "caddy x402 pay
//    --network" pays on each, a payment for the first option's token on
//    the second network is refused; balances checked on both chains;
//  - x402-fetch 1.2.0 throws on that route (it refuses a 402 whose
//    accepts name a network it does not know, every Cronos name among
//    them), and pays a route of two networks it knows:
//    base-sepolia (the embedded devnet run as 84532) and avalanche-fuji
//    (a second devnet run as 43113); a wallet on each chain pays there.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { wrapFetchWithPayment as wrapFetchV1, decodeXPaymentResponse } from "x402-fetch";
import { createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, startDevnet, networkBlock, balanceOf, newPayTo, decodeB64JSON, chainOf, payCLI } from "../lib/harness.mjs";

// The second chains' token addresses: Circle's USDC on Base Sepolia and on
// Avalanche Fuji, so that each chain's token differs from the first's.
const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
const FUJI_USDC = "0x5425890298aed601595a70AB815c96711a31Bc65";

let base, fuji;
before(async () => {
  [base, fuji] = await Promise.all([
    startDevnet({ chainId: 84532, network: "base-sepolia", token: BASE_SEPOLIA_USDC }),
    startDevnet({ chainId: 43113, network: "avalanche-fuji", token: FUJI_USDC }),
  ]);
});
after(async () => {
  await base?.stop();
  await fuji?.stop();
});

// global is the x402 global option: the embedded devnet (devnetExtra in
// its block) and a second network on a devnet of its own.
function global(p, second, env, devnetExtra = "") {
  return `{
	admin 127.0.0.1:${p.admin}
	x402 {
		devnet {
			listen 127.0.0.1:${p.rpc}
			block_time 200ms
			info_file ${p.infoFile}
			${devnetExtra}
		}
		${networkBlock(second.info, env)}
	}
}
`;
}

const lower = (s) => s.toLowerCase();

test("two networks on one route: @x402/fetch registered for the second pays on it, caddy x402 pay --network pays both, the first option's asset on the second network is refused", async () => {
  const payTo = newPayTo();
  const caddy = await startCaddy((p) => global(p, base, "X402_INTEROP_BASE_SIGNER") + `
:${p.http} {
	x402 /paid {
		pay_to ${payTo}
		price 0.01
		network cronos-testnet base-sepolia
		description "interop: two networks"
	}
	respond /paid "{\\"ok\\":true}" 200
}
`);
  try {
    const cronos = caddy.info;
    const balances = async () => ({ cronos: await balanceOf(cronos, payTo), base: await balanceOf(base.info, payTo) });

    // The 402 lists both options in the seller's order, each with its token.
    const unpaid = await fetch(caddy.url + "/paid");
    assert.equal(unpaid.status, 402);
    const pr = decodeB64JSON(unpaid.headers.get("payment-required"));
    assert.deepEqual(pr.accepts.map((a) => [a.scheme, a.network, a.amount, lower(a.asset), lower(a.payTo)]), [
      ["exact", "eip155:338", "10000", lower(cronos.token.address), lower(payTo)],
      ["exact", "eip155:84532", "10000", lower(BASE_SEPOLIA_USDC), lower(payTo)],
    ]);
    for (const a of pr.accepts) assert.deepEqual(a.extra, { name: cronos.token.name, version: cronos.token.version });
    const v1 = await unpaid.json();
    assert.deepEqual(v1.accepts.map((a) => [a.network, lower(a.asset), a.maxAmountRequired]), [
      ["cronos-testnet", lower(cronos.token.address), "10000"],
      ["base-sepolia", lower(BASE_SEPOLIA_USDC), "10000"],
    ]);
    assert.equal(v1.paymentRequirements.network, "cronos-testnet");

    // @x402/fetch registered for eip155:84532 only: it skips the first
    // option and pays on the second chain.
    const buyer = privateKeyToAccount(base.info.buyers[0].privateKey);
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:84532", asset: BASE_SEPOLIA_USDC, maxAmountPerPayment: "10000" }] },
    });
    registerExactEvmScheme(client, { signer: buyer, networks: ["eip155:84532"] });
    let b0 = await balances();
    const buyerBase0 = await balanceOf(base.info, buyer.address);
    const buyerCronos0 = await balanceOf(cronos, buyer.address);
    const res = await wrapFetchWithPayment(fetch, client)(caddy.url + "/paid");
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.deepEqual(JSON.parse(text), { ok: true });
    const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
    assert.equal(settle.success, true);
    assert.equal(settle.network, "eip155:84532");
    assert.equal(lower(settle.payer), lower(buyer.address));
    let b1 = await balances();
    assert.equal(b1.base - b0.base, 10000n);
    assert.equal(b1.cronos - b0.cronos, 0n);
    assert.equal(buyerBase0 - await balanceOf(base.info, buyer.address), 10000n);
    assert.equal(await balanceOf(cronos, buyer.address), buyerCronos0);

    // caddy x402 pay: the first option by default, each with --network
    // (v2 by CAIP-2 id or v1 name, and v1).
    const key = cronos.buyers[1].privateKey;
    for (const [args, chain] of [
      [[], "cronos"],
      [["--network", "base-sepolia"], "base"],
      [["--network", "eip155:338"], "cronos"],
      [["--network", "base-sepolia", "--protocol", "v1", "--shape", "x402"], "base"],
    ]) {
      b0 = await balances();
      const out = await payCLI([caddy.url + "/paid", "--key", key, ...args]);
      assert.equal(out.code, 0, `caddy x402 pay ${args.join(" ")}: ${out.stderr}`);
      assert.equal(out.stdout, '{"ok":true}');
      b1 = await balances();
      assert.equal(b1[chain] - b0[chain], 10000n, `caddy x402 pay ${args.join(" ")}: ${out.stderr}`);
      assert.equal(b1.cronos + b1.base - b0.cronos - b0.base, 10000n, "paid once, on one chain");
    }
    const none = await payCLI([caddy.url + "/paid", "--key", key, "--network", "avalanche-fuji"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /refusing to pay: no acceptable way to pay \(eip155:338: not --network avalanche-fuji; eip155:84532: not --network avalanche-fuji\)/);

    // x402-fetch 1.2.0 checks every accepts entry against its fixed list
    // of networks: the cronos-testnet option makes it throw before it
    // pays anything, even from a wallet on base-sepolia, an option it knows.
    const v1Wallet = createWalletClient({ account: privateKeyToAccount(base.info.buyers[3].privateKey), chain: chainOf(base.info), transport: http(base.info.rpcUrl) });
    b0 = await balances();
    await assert.rejects(wrapFetchV1(fetch, v1Wallet)(caddy.url + "/paid"), (e) => /cronos-testnet/.test(String(e.message)));
    assert.deepEqual(await balances(), b0);

    // The first option's token on the second network: refused before
    // verify with the spec's text; nothing moves on either chain.
    const wrongClient = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:84532", asset: cronos.token.address, maxAmountPerPayment: "10000" }] },
    });
    registerExactEvmScheme(wrongClient, { signer: buyer, networks: ["eip155:84532"] });
    const wrong = { ...pr.accepts[1], asset: pr.accepts[0].asset };
    const payload = await wrongClient.createPaymentPayload({ ...pr, accepts: [wrong] });
    assert.equal(payload.accepted.network, "eip155:84532");
    assert.equal(lower(payload.accepted.asset), lower(cronos.token.address));
    b0 = await balances();
    const refused = await fetch(caddy.url + "/paid", { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload) } });
    assert.equal(refused.status, 402);
    const body = await refused.json();
    // The reason repeats the asset as the payment names it.
    assert.equal(body.invalidReason, "Unsupported asset: " + payload.accepted.asset);
    assert.equal(decodeB64JSON(refused.headers.get("payment-required")).error, "Unsupported asset: " + payload.accepted.asset);
    b1 = await balances();
    assert.deepEqual(b1, b0);
  } finally {
    await caddy.stop();
  }
});

test("x402-fetch 1.2.0 pays a route of two networks it knows (base-sepolia and avalanche-fuji) on its wallet's chain", async () => {
  const payTo = newPayTo();
  const caddy = await startCaddy((p) => global(p, fuji, "X402_INTEROP_FUJI_SIGNER", "chain_id 84532\n\t\t\tnetwork base-sepolia\n\t\t\ttoken " + BASE_SEPOLIA_USDC) + `
:${p.http} {
	x402 /paid {
		pay_to ${payTo}
		amount 10000
		network base-sepolia avalanche-fuji
	}
	respond /paid "{\\"ok\\":true}" 200
}
`);
  try {
    const baseInfo = caddy.info;
    assert.equal(baseInfo.chainId, 84532);
    const unpaid = await (await fetch(caddy.url + "/paid")).json();
    assert.deepEqual(unpaid.accepts.map((a) => [a.network, lower(a.asset)]), [["base-sepolia", lower(BASE_SEPOLIA_USDC)], ["avalanche-fuji", lower(FUJI_USDC)]]);

    for (const [info, network] of [[fuji.info, "avalanche-fuji"], [baseInfo, "base-sepolia"]]) {
      const account = privateKeyToAccount(info.buyers[2].privateKey);
      const wallet = createWalletClient({ account, chain: chainOf(info), transport: http(info.rpcUrl) });
      const before = { base: await balanceOf(baseInfo, payTo), fuji: await balanceOf(fuji.info, payTo) };
      const buyerBefore = await balanceOf(info, account.address);
      const res = await wrapFetchV1(fetch, wallet)(caddy.url + "/paid");
      const text = await res.text();
      assert.equal(res.status, 200, `${network}: ${text}`);
      const pr = decodeXPaymentResponse(res.headers.get("x-payment-response"));
      assert.equal(pr.success, true);
      assert.equal(pr.network, network);
      const after = { base: await balanceOf(baseInfo, payTo), fuji: await balanceOf(fuji.info, payTo) };
      const paidOn = network === "base-sepolia" ? "base" : "fuji";
      const other = paidOn === "base" ? "fuji" : "base";
      assert.equal(after[paidOn] - before[paidOn], 10000n, network);
      assert.equal(after[other] - before[other], 0n, network);
      assert.equal(buyerBefore - await balanceOf(info, account.address), 10000n);
    }
  } finally {
    await caddy.stop();
  }
});
