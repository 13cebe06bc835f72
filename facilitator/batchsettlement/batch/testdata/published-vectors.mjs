// Writes published-vectors.json: channel ids, vouchers, deposits (EIP-3009
// and Permit2), a claim batch and a refund, computed and signed by the
// published x402 client, @x402/evm 2.27.0 with viem 2.57.0, for the tests of
// package batch, which check that our typed data and signatures are
// byte-identical (ECDSA signing is deterministic, RFC 6979) and that the
// devnet's contracts accept what that client signs.
//
// Run from a directory whose node_modules has those packages, such as
// e2e/interop after `npm ci`:
//
//   cd e2e/interop && npm ci && node ../../facilitator/batch/testdata/published-vectors.mjs
//
// The deposit payloads carry a random salt or nonce and a validBefore or
// deadline of now + maxTimeoutSeconds, so each run writes different ones;
// any of them must pass.
import { createRequire } from "node:module";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(process.cwd() + "/");
const client = require("@x402/evm/batch-settlement/client");
const evm = require("@x402/evm");
const { privateKeyToAccount } = require("viem/accounts");
const { hashTypedData, getAddress } = require("viem");

// The devnet's buyer1 and signer (TEST ONLY keys; see package devnet), its
// token, and a payee.
const buyer = privateKeyToAccount("0x087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4");
const authorizer = privateKeyToAccount("0x4484399f9ff44c15830151ab53cfff61a32dd4037ee9db7b2b7d7373de7e59dd");
const token = "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0";
const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const chainId = 338;
const network = "eip155:" + chainId;
const domain = { ...evm.BATCH_SETTLEMENT_DOMAIN, chainId, verifyingContract: getAddress(evm.BATCH_SETTLEMENT_ADDRESS) };

const requirements = (extra) => ({
  scheme: "batch-settlement",
  network,
  asset: token,
  amount: "1000",
  payTo,
  maxTimeoutSeconds: 10 * 365 * 24 * 3600,
  extra: { name: "Bridged USDC (Stargate)", version: "1", receiverAuthorizer: authorizer.address, withdrawDelay: 900, ...extra },
});

// Two channels of buyer1: one whose vouchers buyer1 signs as payer
// authorizer (the client's default), one with no payer authorizer.
const withAuthorizer = {
  payer: buyer.address, payerAuthorizer: buyer.address, receiver: payTo, receiverAuthorizer: authorizer.address,
  token, withdrawDelay: 900, salt: "0x0000000000000000000000000000000000000000000000000000000000000000",
};
const withoutAuthorizer = {
  ...withAuthorizer, payerAuthorizer: "0x0000000000000000000000000000000000000000", withdrawDelay: 86400,
  salt: "0x00000000000000000000000000000000000000000000000000000000000000ff",
};
const channels = [withAuthorizer, withoutAuthorizer].map((config) => ({ config, channelId: client.computeChannelId(config, network) }));

const vouchers = [];
for (const [i, max] of [[0, "1000"], [1, "2500"], [0, "340282366920938463463374607431768211455"]]) {
  const v = await client.signVoucher(buyer, channels[i].channelId, max, network);
  const digest = hashTypedData({ domain, types: evm.voucherTypes, primaryType: "Voucher", message: { channelId: v.channelId, maxClaimableAmount: BigInt(max) } });
  vouchers.push({ ...v, digest });
}

// Deposits through the client scheme itself (no readContract: no channel
// on record, so the first payment is a deposit).
const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m) };
const scheme = new client.BatchSettlementEvmScheme(signer);
const erc3009 = await scheme.createPaymentPayload(2, requirements({}));
const permit2 = await new client.BatchSettlementEvmScheme(signer).createPaymentPayload(2, requirements({ assetTransferMethod: "permit2" }));

const claims = [
  { voucher: { channel: channels[0].config, maxClaimableAmount: "1000" }, signature: vouchers[0].signature, totalClaimed: "700" },
  { voucher: { channel: channels[1].config, maxClaimableAmount: "2500" }, signature: vouchers[1].signature, totalClaimed: "2500" },
];
const claimMessage = {
  claims: claims.map((c) => ({
    channelId: client.computeChannelId(c.voucher.channel, network),
    maxClaimableAmount: BigInt(c.voucher.maxClaimableAmount),
    totalClaimed: BigInt(c.totalClaimed),
  })),
};
const claimBatch = {
  claims,
  digest: hashTypedData({ domain, types: evm.claimBatchTypes, primaryType: "ClaimBatch", message: claimMessage }),
  signature: await authorizer.signTypedData({ domain, types: evm.claimBatchTypes, primaryType: "ClaimBatch", message: claimMessage }),
};
const refundMessage = { channelId: channels[0].channelId, nonce: 3n, amount: 123456n };
const refund = {
  channelId: channels[0].channelId, nonce: "3", amount: "123456",
  digest: hashTypedData({ domain, types: evm.refundTypes, primaryType: "Refund", message: refundMessage }),
  signature: await authorizer.signTypedData({ domain, types: evm.refundTypes, primaryType: "Refund", message: refundMessage }),
};

// The contract ABI the published facilitator and client call (its
// batchSettlementABI, in an internal module of the package), so the tests
// can hold our contract's ABI to it.
const dist = join(dirname(require.resolve("@x402/evm/batch-settlement/client")), "..", "..", "..", "esm");
const abiModule = readdirSync(dist).find((f) => f.endsWith(".mjs") && readFileSync(join(dist, f), "utf8").includes("var batchSettlementABI ="));
const { batchSettlementABI } = await import(pathToFileURL(join(dist, abiModule)).href);

const out = {
  generatedBy: "@x402/evm 2.27.0 (batch-settlement client: computeChannelId, signVoucher, BatchSettlementEvmScheme) with viem 2.57.0",
  chainId,
  payer: buyer.address,
  receiverAuthorizer: authorizer.address,
  channels,
  vouchers,
  deposits: { erc3009: erc3009.payload, permit2: permit2.payload },
  claimBatch,
  refund,
  publishedABI: batchSettlementABI,
};
const path = new URL("./published-vectors.json", import.meta.url);
writeFileSync(path, JSON.stringify(out, null, 2) + "\n");
console.error("wrote " + path.pathname);
