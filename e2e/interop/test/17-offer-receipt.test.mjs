// The published offer-receipt verifiers (@x402/extensions 2.27
// ./offer-receipt) check our signed offers and receipts (issue 34): the
// offers of an exact route's 402 (EIP-712 and JWS) verify, resolving our
// did:web, and match their accepts entries; a receipt of a request paid by
// @x402/fetch verifies, matches its offer and names the payer, the
// resource, the network and the transaction; an upto route's receipt signs
// the metered amount, not the maximum (JWS: a claim of the payload;
// EIP-712: our Charge object beside the receipt, docs/receipts.md); a
// tampered receipt fails; a refused payment gets none.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme, createPermit2ApprovalTx } from "@x402/evm/upto/client";
import {
  extractOffersFromPaymentRequired, decodeSignedOffers, findAcceptsObjectFromSignedOffer, extractReceiptFromResponse,
  verifyOfferSignatureEIP712, verifyOfferSignatureJWS, verifyReceiptSignatureEIP712, verifyReceiptSignatureJWS,
  verifyReceiptMatchesOffer, extractJWSPayload,
} from "@x402/extensions/offer-receipt";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { createWalletClient, createPublicClient, http as viemHttp, recoverTypedDataAddress } from "viem";
import { startCaddy, balanceOf, newPayTo, decodeB64JSON, freePort, chainOf } from "../lib/harness.mjs";

// The receipt key (TEST-ONLY), given to caddy by placeholder.
const receiptKey = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
const receiptAddress = privateKeyToAccount(receiptKey).address;
const payTo = newPayTo();
let caddy, upstream;

// The seller's metered upstream: {"usage":{"total_tokens":N}}.
async function startUpstream() {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    const tokens = new URL(req.url, "http://x").searchParams.get("tokens") ?? "1";
    res.setHeader("Content-Type", "application/json");
    res.end(`{"answer":"42","usage":{"total_tokens":${tokens}}}`);
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `127.0.0.1:${port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

const exactRoute = (path, format) => `
	handle ${path} {
		x402 {
			pay_to ${payTo}
			amount 10000
			network eip155:338
			offer_receipt ${format}
		}
		respond "{\\"ok\\":true}" 200
	}`;
const uptoRoute = (path, format) => `
	handle_path ${path}/* {
		x402 {
			pay_to ${payTo}
			amount 10000
			network eip155:338
			scheme upto
			meter json usage.total_tokens 2
			offer_receipt ${format}
		}
		reverse_proxy ${upstream.url}
	}`;

before(async () => {
  upstream = await startUpstream();
  process.env.X402_INTEROP_RECEIPT_KEY = receiptKey;
  caddy = await startCaddy((p) => `{
	admin 127.0.0.1:${p.admin}
	x402 {
		receipt_key {env.X402_INTEROP_RECEIPT_KEY}
		devnet {
			listen 127.0.0.1:${p.rpc}
			block_time 200ms
			info_file ${p.infoFile}
		}
	}
}
:${p.http} {
	x402_path_guard
${exactRoute("/e712", "eip712")}
${exactRoute("/jws", "jws")}
${uptoRoute("/upto-e712", "eip712")}
${uptoRoute("/upto-jws", "jws")}
	respond /healthcheck 200
}
`);
});
after(async () => {
  await caddy?.stop();
  await upstream?.close();
});

// did is our did:web document and the DID of the site.
const did = () => `did:web:127.0.0.1%3A${caddy.ports.http}`;

// offersOf fetches path unpaid and returns its 402 and the signed offers.
async function offersOf(path) {
  const res = await fetch(caddy.url + path);
  assert.equal(res.status, 402);
  const pr = decodeB64JSON(res.headers.get("payment-required"));
  return { pr, offers: extractOffersFromPaymentRequired(pr) };
}

// verifyOffer verifies a signed offer with the published verifier of its
// format: JWS resolves the kid's did:web; EIP-712 recovers the signer, which
// must be the receipt key our did.json lists.
async function verifyOffer(o) {
  if (o.format === "jws") return verifyOfferSignatureJWS(o);
  const { signer, payload } = await verifyOfferSignatureEIP712(o);
  assert.equal(signer.toLowerCase(), receiptAddress.toLowerCase());
  return payload;
}

// verifyReceipt is verifyOffer's counterpart for receipts.
async function verifyReceipt(r) {
  if (r.format === "jws") return verifyReceiptSignatureJWS(r);
  const { signer, payload } = await verifyReceiptSignatureEIP712(r);
  assert.equal(signer.toLowerCase(), receiptAddress.toLowerCase(), "the EIP-712 receipt is signed by the receipt key");
  return payload;
}

test("did.json lists the receipt key under the site's did:web", async () => {
  const res = await fetch(caddy.url + "/.well-known/did.json");
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.id, did());
  const vm = doc.verificationMethod[0];
  assert.match(vm.id, new RegExp("^" + did().replace(/[.%]/g, "\\$&") + "#"));
  assert.equal(vm.blockchainAccountId.toLowerCase(), ("eip155:1:" + receiptAddress).toLowerCase());
});

for (const format of ["eip712", "jws"]) {
  const path = format === "jws" ? "/jws" : "/e712";

  test(`${format}: the offers of an exact route verify and find their accepts entries`, async () => {
    const { pr, offers } = await offersOf(path);
    assert.equal(offers.length, pr.accepts.length);
    assert.ok(offers.length >= 1);
    for (const [i, o] of offers.entries()) {
      assert.equal(o.format, format);
      assert.equal(o.acceptIndex, i);
      if (format === "jws") {
        const header = JSON.parse(Buffer.from(o.signature.split(".")[0], "base64url").toString());
        assert.equal(header.alg, "ES256K");
        assert.ok(header.kid.startsWith(did() + "#"), header.kid);
      }
      const payload = await verifyOffer(o);
      assert.equal(payload.resourceUrl, pr.resource.url);
      assert.equal(payload.version, 1);
      assert.ok(payload.validUntil === 0 || payload.validUntil > Date.now() / 1000);
      assert.equal(findAcceptsObjectFromSignedOffer(o, pr.accepts), pr.accepts[i]);
      const [decoded] = decodeSignedOffers([o]);
      assert.deepEqual([decoded.scheme, decoded.network, decoded.amount, decoded.payTo.toLowerCase()],
        ["exact", "eip155:338", "10000", payTo.toLowerCase()]);
    }
  });

  test(`${format}: a paid request's receipt verifies, matches its offer, and names payer, resource, network and transaction`, async () => {
    const { offers } = await offersOf(path);
    const buyer = privateKeyToAccount(caddy.info.buyers[format === "jws" ? 0 : 1].privateKey);
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
    });
    registerExactEvmScheme(client, { signer: buyer });
    const sellerBefore = await balanceOf(caddy.info, payTo);
    const res = await wrapFetchWithPayment(fetch, client)(caddy.url + path);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 10000n);
    const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
    const receipt = extractReceiptFromResponse(res);
    assert.ok(receipt, "the settlement response carries a receipt");
    assert.equal(receipt.format, format);
    const payload = await verifyReceipt(receipt);
    assert.equal(payload.payer.toLowerCase(), buyer.address.toLowerCase());
    assert.equal(payload.resourceUrl, caddy.url + path);
    assert.equal(payload.network, "eip155:338");
    assert.match(settle.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal(payload.transaction, settle.transaction);
    const [offer] = decodeSignedOffers(offers);
    assert.equal(verifyReceiptMatchesOffer(receipt, offer, [buyer.address]), true);
    assert.equal(verifyReceiptMatchesOffer(receipt, offer, [payTo]), false, "another payer does not match");

    // A receipt changed after signing fails.
    if (format === "jws") {
      const [h, p, s] = receipt.signature.split(".");
      const changed = { ...extractJWSPayload(receipt.signature), payer: payTo };
      const forged = [h, Buffer.from(JSON.stringify(changed)).toString("base64url"), s].join(".");
      await assert.rejects(verifyReceiptSignatureJWS({ format: "jws", signature: forged }));
    } else {
      const forged = { ...receipt, payload: { ...receipt.payload, payer: payTo } };
      const { signer } = await verifyReceiptSignatureEIP712(forged);
      assert.notEqual(signer.toLowerCase(), receiptAddress.toLowerCase());
    }
  });
}

test("a refused payment gets no receipt", async () => {
  // A fresh key with no tokens: the seller refuses its payment.
  const broke = privateKeyToAccount(generatePrivateKey());
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
  });
  registerExactEvmScheme(client, { signer: broke });
  for (const path of ["/jws", "/e712"]) {
    const res = await wrapFetchWithPayment(fetch, client)(caddy.url + path);
    assert.equal(res.status, 402);
    assert.equal(extractReceiptFromResponse(res), undefined);
    const pr = decodeB64JSON(res.headers.get("payment-required"));
    assert.ok(pr.error, "the 402 says why");
    assert.equal(pr.extensions?.["offer-receipt"]?.info?.receipt, undefined);
  }
});

// The Charge signed beside an EIP-712 receipt (docs/receipts.md): domain
// "x402 charge", version "1", chainId 1; the receipt's six fields, then the
// charge's.
const chargeTypes = {
  Charge: [
    { name: "version", type: "uint256" },
    { name: "network", type: "string" },
    { name: "resourceUrl", type: "string" },
    { name: "payer", type: "string" },
    { name: "issuedAt", type: "uint256" },
    { name: "transaction", type: "string" },
    { name: "scheme", type: "string" },
    { name: "asset", type: "string" },
    { name: "payTo", type: "string" },
    { name: "amount", type: "string" },
    { name: "maxAmount", type: "string" },
    { name: "usage", type: "string" },
    { name: "channel", type: "string" },
    { name: "chargedCumulative", type: "string" },
  ],
};

test("an upto route's receipt signs the metered amount, not the maximum", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey);
  const chain = chainOf(caddy.info);
  const wallet = createWalletClient({ account: buyer, chain, transport: viemHttp(caddy.info.rpcUrl) });
  const hash = await wallet.sendTransaction(createPermit2ApprovalTx(caddy.info.token.address));
  await createPublicClient({ chain, transport: viemHttp(caddy.info.rpcUrl) }).waitForTransactionReceipt({ hash });
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
  });
  client.register("eip155:338", new UptoEvmScheme(buyer));
  const pay = wrapFetchWithPayment(fetch, client);

  for (const [format, tokens] of [["jws", 321], ["eip712", 123]]) {
    const path = `/upto-${format === "jws" ? "jws" : "e712"}/json?tokens=${tokens}`;
    const metered = String(2 * tokens);
    const buyerBefore = await balanceOf(caddy.info, buyer.address);
    const res = await pay(caddy.url + path);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(buyerBefore - await balanceOf(caddy.info, buyer.address), BigInt(metered));
    const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
    const receipt = extractReceiptFromResponse(res);
    const payload = await verifyReceipt(receipt);
    assert.equal(payload.payer.toLowerCase(), buyer.address.toLowerCase());
    assert.equal(payload.transaction, settle.transaction);
    let charge;
    if (format === "jws") {
      // The verified payload carries the charge as a claim.
      charge = payload.charge;
    } else {
      // Beside the receipt: the Charge, signed by the same key over the
      // receipt's fields and the charge's.
      const signed = settle.extensions["offer-receipt"].info.charge;
      assert.equal(signed.format, "eip712");
      const p = signed.payload;
      for (const k of ["version", "network", "resourceUrl", "payer", "issuedAt", "transaction"]) {
        assert.equal(p[k], receipt.payload[k], `the charge repeats the receipt's ${k}`);
      }
      const message = { ...Object.fromEntries(chargeTypes.Charge.map((f) => [f.name, p[f.name] ?? ""])), version: BigInt(p.version), issuedAt: BigInt(p.issuedAt) };
      const signer = await recoverTypedDataAddress({
        domain: { name: "x402 charge", version: "1", chainId: 1 },
        types: chargeTypes, primaryType: "Charge", message, signature: signed.signature,
      });
      assert.equal(signer.toLowerCase(), receiptAddress.toLowerCase(), "the charge is signed by the receipt key");
      const forged = await recoverTypedDataAddress({
        domain: { name: "x402 charge", version: "1", chainId: 1 },
        types: chargeTypes, primaryType: "Charge", message: { ...message, amount: "10000" }, signature: signed.signature,
      });
      assert.notEqual(forged.toLowerCase(), receiptAddress.toLowerCase(), "a charge changed after signing fails");
      charge = p;
    }
    assert.equal(charge.amount, metered, `${format}: the metered amount`);
    assert.equal(charge.maxAmount, "10000");
    assert.equal(charge.scheme, "upto");
    assert.equal(charge.payTo.toLowerCase(), payTo.toLowerCase());
  }
});
