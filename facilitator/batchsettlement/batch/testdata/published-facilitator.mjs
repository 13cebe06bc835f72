// A hand check, not a test: the published x402 facilitator (@x402/evm 2.27.0
// batch-settlement, with its own receiver-authorizer key) and client, against
// the devnet's batch-settlement contracts and Multicall3. It verifies and
// settles a deposit, verifies a voucher of a client that recovered its
// channel from the chain, settles a claim, a settle and a refund, printing
// each answer.
//
//   go build -o /tmp/caddy ./caddy
//   /tmp/caddy x402 devnet --block-time 300ms --out /tmp/devnet.json &
//   cd e2e/interop && npm ci && node ../../facilitator/batch/testdata/published-facilitator.mjs /tmp/devnet.json
//
// Seen on 2026-11-26: every step success; the receiver got 1000, the refund
// returned 2000 with refundNonce 1.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.cwd() + "/");
const client = require("@x402/evm/batch-settlement/client");
const { BatchSettlementEvmScheme: Facilitator } = require("@x402/evm/batch-settlement/facilitator");
const evm = require("@x402/evm");
const { privateKeyToAccount } = require("viem/accounts");
const { createWalletClient, publicActions, http } = require("viem");

const info = JSON.parse(readFileSync(process.argv[2], "utf8"));
const chain = { id: info.chainId, name: "devnet", nativeCurrency: { name: "CRO", symbol: "CRO", decimals: 18 }, rpcUrls: { default: { http: [info.rpcUrl] } } };
const wallet = createWalletClient({ account: privateKeyToAccount(info.signer.privateKey), chain, transport: http(info.rpcUrl) }).extend(publicActions);
const authorizer = privateKeyToAccount(info.minter.privateKey); // a dedicated receiver-authorizer key
const fac = new Facilitator(evm.toFacilitatorEvmSigner(Object.assign(wallet, { address: wallet.account.address })), authorizer);
const extra = fac.getExtra("eip155:" + info.chainId);
console.log("facilitator extra:", extra);
const buyer = privateKeyToAccount(info.buyers[2].privateKey);
const payTo = "0x00000000000000000000000000000000000b0b28";
const req = { scheme: "batch-settlement", network: "eip155:" + info.chainId, asset: info.token.address, amount: "1000", payTo, maxTimeoutSeconds: 3600,
  extra: { name: info.token.name, version: info.token.version, withdrawDelay: 900, ...extra } };
const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m), readContract: (a) => wallet.readContract(a) };
const show = (what, r) => console.log(what, JSON.stringify(r, (k, v) => typeof v === "bigint" ? v.toString() : v));

const storage = new client.InMemoryClientChannelStorage();
const scheme = new client.BatchSettlementEvmScheme(signer, { storage });
const p1 = await scheme.createPaymentPayload(2, req);
const env1 = { x402Version: 2, accepted: req, payload: p1.payload };
show("verify deposit:", await fac.verify(env1, req));
const s1 = await fac.settle(env1, req);
show("settle deposit:", s1);
const p2 = await new client.BatchSettlementEvmScheme(signer).createPaymentPayload(2, req); // recovers from the chain
const env2 = { x402Version: 2, accepted: req, payload: p2.payload };
show("verify voucher:", await fac.verify(env2, req));
const claim = { type: "claim", claims: [{ voucher: { channel: p2.payload.channelConfig, maxClaimableAmount: p2.payload.voucher.maxClaimableAmount }, signature: p2.payload.voucher.signature, totalClaimed: p2.payload.voucher.maxClaimableAmount }] };
show("settle claim:", await fac.settle({ x402Version: 2, accepted: req, payload: claim }, req));
show("settle settle:", await fac.settle({ x402Version: 2, accepted: req, payload: { type: "settle", receiver: payTo, token: info.token.address } }, req));
console.log("receiver balance:", await wallet.readContract({ address: info.token.address, abi: [{ type: "function", name: "balanceOf", inputs: [{ type: "address" }], outputs: [{ type: "uint256" }], stateMutability: "view" }], functionName: "balanceOf", args: [payTo] }));
const refund = { type: "refund", channelConfig: p2.payload.channelConfig, voucher: p2.payload.voucher, amount: "2000", refundNonce: "0", claims: [] };
show("settle refund:", await fac.settle({ x402Version: 2, accepted: req, payload: refund }, req));
