// @crypto.com/facilitator-client (the Cronos SDK) on the Cronos routes,
// exactly as the interface specifies them: paymentHeader bodies,
// payment.settled / payment.failed answers.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Facilitator, CronosNetwork } from "@crypto.com/facilitator-client";
import { ethers } from "ethers";
import { startCaddy, devnetGlobal, balanceOf, newPayTo } from "../lib/harness.mjs";

let caddy;
before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402_facilitator
}
`);
});
after(async () => caddy?.stop());

test("the Cronos SDK verifies and settles on the Cronos routes", async () => {
  const facilitator = new Facilitator({ network: CronosNetwork.CronosTestnet });
  facilitator.baseUrl = caddy.url; // the SDK's base URL is fixed; point it at ours
  const supported = await facilitator.getSupported();
  assert.deepEqual(supported.kinds[0], { x402Version: 1, scheme: "exact", network: "cronos-testnet" });

  const payTo = newPayTo();
  const provider = new ethers.JsonRpcProvider(caddy.info.rpcUrl, undefined, { staticNetwork: true });
  const signer = new ethers.Wallet(caddy.info.buyers[3].privateKey, provider);
  const requirements = facilitator.generatePaymentRequirements({ payTo, description: "interop: Cronos SDK", maxAmountRequired: "40000" });
  const header = await facilitator.generatePaymentHeader({
    to: payTo, value: "40000", signer, validBefore: Math.floor(Date.now() / 1000) + 600,
  });
  const body = facilitator.buildVerifyRequest(header, requirements);

  const verify = await facilitator.verifyPayment(body);
  assert.equal(verify.isValid, true);
  assert.equal(verify.invalidReason, null);

  const before = await balanceOf(caddy.info, payTo);
  const settled = await facilitator.settlePayment(body);
  assert.equal(settled.event, "payment.settled");
  assert.equal(settled.x402Version, 1);
  assert.equal(settled.network, "cronos-testnet");
  assert.equal(settled.value, "40000");
  assert.equal(settled.from.toLowerCase(), signer.address.toLowerCase());
  assert.equal(settled.to.toLowerCase(), payTo.toLowerCase());
  assert.match(settled.txHash, /^0x[0-9a-f]{64}$/);
  assert.equal(typeof settled.blockNumber, "number");
  assert.match(settled.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // The reference fields ride along, so reference sellers read it right.
  assert.equal(settled.success, true);
  assert.equal(settled.transaction, settled.txHash);
  assert.equal(await balanceOf(caddy.info, payTo) - before, 40000n);

  const again = await facilitator.settlePayment(body);
  assert.equal(again.event, "payment.failed");
  assert.equal(again.error, "Authorization already used");
  assert.equal(again.success, false);
  assert.equal(again.errorReason, "invalid_exact_evm_nonce_already_used");
  assert.equal(await balanceOf(caddy.info, payTo) - before, 40000n);
});
