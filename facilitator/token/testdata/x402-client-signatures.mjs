// Writes x402-client-signatures.json: Permit2 payloads (and an EIP-2612
// permit) signed by the published x402 client, @x402/evm 2.27.0 with viem
// 2.57.0, for the tests of permit2_test.go and of package evm, which check
// that our Permit2, proxies and token accept what that client signs and that
// our signing code produces the same bytes.
//
// Run from a directory whose node_modules has those packages, such as
// e2e/interop after `npm ci`:
//
//   cd e2e/interop && npm ci && node ../../facilitator/token/testdata/x402-client-signatures.mjs
//
// The client picks a random nonce and a deadline of now + maxTimeoutSeconds,
// so each run writes different payloads; any of them must pass.
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(process.cwd() + "/");
const { UptoEvmScheme } = require("@x402/evm/upto/client");
const { ExactEvmScheme } = require("@x402/evm/exact/client");
const evm = require("@x402/evm");
const { privateKeyToAccount } = require("viem/accounts");
const { hashTypedData } = require("viem");

// The devnet's buyer1 (keccak256("caddy-x402 devnet buyer 1"); TEST ONLY),
// its token, its signer as the facilitator, and a payee.
const account = privateKeyToAccount("0x087e13a36a752a4b4ba7494f24e1e3c9a17bfb2c82d0c65928855c87cee45bb4");
const token = "0xc01efAaF7C5C61bEbFAeb358E1161b537b8bC0e0";
const facilitator = "0xBdBCA70E4Ef5738f447dE847944162095dAb17cD";
const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C";
const chainId = 338;

// readContract answers 0 for nonces (a fresh token account) and for the
// Permit2 allowance (so the client signs the EIP-2612 permit).
const signer = {
  address: account.address,
  signTypedData: (m) => account.signTypedData(m),
  readContract: async () => 0n,
};

const requirements = (scheme, amount, extra) => ({
  scheme,
  network: "eip155:" + chainId,
  asset: token,
  amount,
  payTo,
  maxTimeoutSeconds: 10 * 365 * 24 * 3600,
  extra: { name: "Bridged USDC (Stargate)", version: "1", ...extra },
});
const context = { extensions: { eip2612GasSponsoring: {} } };

const digest = (types, a, witness) =>
  hashTypedData({
    domain: { name: "Permit2", chainId, verifyingContract: evm.PERMIT2_ADDRESS },
    types,
    primaryType: "PermitWitnessTransferFrom",
    message: {
      permitted: { token: a.permitted.token, amount: BigInt(a.permitted.amount) },
      spender: a.spender,
      nonce: BigInt(a.nonce),
      deadline: BigInt(a.deadline),
      witness,
    },
  });

const upto = await new UptoEvmScheme(signer).createPaymentPayload(
  2,
  requirements("upto", "2000000", { facilitatorAddress: facilitator }),
  context,
);
const ua = upto.payload.permit2Authorization;
const exact = await new ExactEvmScheme(signer).createPaymentPayload(
  2,
  requirements("exact", "1500000", { assetTransferMethod: "permit2" }),
);
const ea = exact.payload.permit2Authorization;

const out = {
  generatedBy: "@x402/evm 2.27.0 (UptoEvmScheme, ExactEvmScheme) with viem 2.57.0",
  chainId,
  upto: {
    payload: upto.payload,
    eip2612: upto.extensions?.eip2612GasSponsoring?.info,
    digest: digest(evm.uptoPermit2WitnessTypes, ua, {
      to: ua.witness.to,
      facilitator: ua.witness.facilitator,
      validAfter: BigInt(ua.witness.validAfter),
    }),
  },
  exact: {
    payload: exact.payload,
    digest: digest(evm.permit2WitnessTypes, ea, { to: ea.witness.to, validAfter: BigInt(ea.witness.validAfter) }),
  },
};
const path = new URL("./x402-client-signatures.json", import.meta.url);
writeFileSync(path, JSON.stringify(out, null, 2) + "\n");
console.error("wrote " + path.pathname);
