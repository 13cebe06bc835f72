// The paywall sells by payment channel with deposits by Permit2:
// `x402 { scheme batch-settlement  asset_transfer permit2 }`, bought by
// the published client (@x402/fetch 2.27 with @x402/evm's
// BatchSettlementEvmScheme), which reads assetTransferMethod permit2 and
// signs a Permit2 witness transfer into the Permit2 deposit collector: a
// buyer without an allowance to Permit2 is refused with the published
// reason and nothing moves; after its one approval it deposits once,
// pays later requests with vouchers, and the claim round pays the seller
// exactly price x requests; the deposit sent again moves nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { createRequire } from "node:module";
import { privateKeyToAccount } from "viem/accounts";
import { createPublicClient, createWalletClient, http } from "viem";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, waitFor, decodeB64JSON, chainOf } from "../lib/harness.mjs";

const require = createRequire(import.meta.url);
const { BatchSettlementEvmScheme: ClientScheme } = require("@x402/evm/batch-settlement/client");
const { createPermit2ApprovalTx } = require("@x402/evm/upto/client");

const SETTLEMENT = "0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003";
const PRICE = 1000n;
const network = "eip155:338";

let caddy;
const payTo = newPayTo();
before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	handle /paid {
		x402 {
			pay_to ${payTo}
			amount ${PRICE}
			scheme batch-settlement
			asset_transfer permit2
			claim_every 1s
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
function buyerClient(i, sent) {
  const buyer = privateKeyToAccount(caddy.info.buyers[i].privateKey);
  const reader = createPublicClient({ chain: chainOf(caddy.info), transport: http(caddy.info.rpcUrl) });
  const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m), readContract: (a) => reader.readContract(a) };
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network, asset: caddy.info.token.address, maxAmountPerPayment: "1000000" }] },
  }).register(network, new ClientScheme(signer, { depositPolicy: { depositMultiplier: 20 } }));
  const recording = (input, init) => {
    const req = new Request(input, init);
    const h = req.headers.get("payment-signature");
    if (h) sent.push(h);
    return fetch(req);
  };
  return { buyer, pay: wrapFetchWithPayment(recording, client) };
}

// approvePermit2 sends the buyer's one approval of Permit2, as the client
// package's createPermit2ApprovalTx builds it.
async function approvePermit2(account) {
  const chain = chainOf(caddy.info);
  const wallet = createWalletClient({ account, chain, transport: http(caddy.info.rpcUrl) });
  const hash = await wallet.sendTransaction(createPermit2ApprovalTx(caddy.info.token.address));
  const rc = await createPublicClient({ chain, transport: http(caddy.info.rpcUrl) }).waitForTransactionReceipt({ hash });
  assert.equal(rc.status, "success");
}

test("the published channel client deposits by Permit2: refused without allowance, then one deposit, vouchers, the seller gets price x N", async () => {
  const url = caddy.url + "/paid";
  const unpaid = await fetch(url);
  assert.equal(unpaid.status, 402);
  const accept = decodeB64JSON(unpaid.headers.get("payment-required")).accepts[0];
  assert.equal(accept.scheme, "batch-settlement");
  assert.equal(accept.extra.assetTransferMethod, "permit2");

  const sent = [];
  const { buyer, pay } = buyerClient(4, sent);
  const buyerBefore = await balanceOf(caddy.info, buyer.address);
  const refused = await pay(url);
  assert.equal(refused.status, 402, await refused.text());
  assert.equal(decodeB64JSON(refused.headers.get("payment-required")).error, "invalid_batch_settlement_evm_permit2_allowance_required");
  assert.ok(decodeB64JSON(sent[0]).payload.deposit.authorization.permit2Authorization, "the client signed a Permit2 deposit");
  assert.equal(await balanceOf(caddy.info, buyer.address), buyerBefore, "nothing moved");

  await approvePermit2(buyer);
  sent.length = 0;
  const escrowBefore = await balanceOf(caddy.info, SETTLEMENT);
  const n = 5;
  for (let i = 0; i < n; i++) {
    const res = await pay(url);
    const body = await res.text();
    assert.equal(res.status, 200, `request ${i}: ${body}`);
    assert.equal(body, "paid content");
    const receipt = decodeB64JSON(res.headers.get("payment-response"));
    assert.equal(receipt.success, true);
    assert.equal(receipt.extra.channelState.chargedCumulativeAmount, (PRICE * BigInt(i + 1)).toString());
    if (i === 0) assert.match(receipt.transaction, /^0x[0-9a-f]{64}$/, "the deposit names its transaction");
    else assert.equal(receipt.transaction, "", "a voucher is served without a transaction");
  }
  const deposit = decodeB64JSON(sent[0]).payload;
  assert.equal(deposit.type, "deposit");
  assert.equal(deposit.deposit.authorization.permit2Authorization.spender.toLowerCase(), "0x4020425faf3b746c082c2f942b4e5159887b0005");
  for (const h of sent.slice(1)) assert.equal(decodeB64JSON(h).payload.type, "voucher");
  const deposited = buyerBefore - (await balanceOf(caddy.info, buyer.address));
  assert.equal(deposited, PRICE * 20n, "one deposit (20 x the price), no other transfer from the buyer");
  assert.equal((await balanceOf(caddy.info, SETTLEMENT)) - escrowBefore, deposited);

  // The deposit sent again is not served and moves nothing.
  const again = await fetch(url, { headers: { "PAYMENT-SIGNATURE": sent[0] } });
  assert.equal(again.status, 402);
  assert.equal(buyerBefore - (await balanceOf(caddy.info, buyer.address)), deposited);

  await waitFor(async () => (await balanceOf(caddy.info, payTo)) === PRICE * BigInt(n), "the claim round to pay the seller", 30000);
  assert.equal(await balanceOf(caddy.info, payTo), PRICE * BigInt(n));
});
