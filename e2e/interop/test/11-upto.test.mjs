// The published upto client (@x402/fetch 2.27 with UptoEvmScheme of
// @x402/evm 2.27) pays metered routes of our paywall on the devnet: the
// charge comes from the upstream's Settlement-Overrides header or from the
// seller's meter (a JSON body, or the last server-sent event with the
// usage), capped at the maximum the buyer signed.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { x402Client, wrapFetchWithPayment, decodePaymentResponseHeader } from "@x402/fetch";
import { UptoEvmScheme, createPermit2ApprovalTx } from "@x402/evm/upto/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { privateKeyToAccount } from "viem/accounts";
import { createWalletClient, createPublicClient, http as viemHttp } from "viem";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, decodeB64JSON, freePort, chainOf } from "../lib/harness.mjs";

const payTo = newPayTo();
let caddy, upstream, releaseSSE;

// The seller's upstream, a metered API that knows nothing of x402.
async function startUpstream() {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    const tokens = u.searchParams.get("tokens") ?? "999";
    if (u.pathname === "/header") {
      res.setHeader("Settlement-Overrides", JSON.stringify({ amount: u.searchParams.get("amount") }));
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ answer: "by header", usage: { total_tokens: 1 } }));
    } else if (u.pathname === "/json") {
      res.setHeader("Content-Type", "application/json");
      res.end(`{"answer":"42","usage":{"total_tokens":${tokens}}}`);
    } else if (u.pathname === "/sse") {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write('data: {"choices":[{"delta":"Hel"}],"usage":null}\n\n');
      new Promise((r) => (releaseSSE = r)).then(() => {
        res.end(`data: {"choices":[{"delta":"lo"}],"usage":{"total_tokens":${tokens}}}\n\ndata: [DONE]\n\n`);
      });
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `127.0.0.1:${port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

before(async () => {
  upstream = await startUpstream();
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	handle_path /before/* {
		x402 {
			pay_to ${payTo}
			amount 10000
			network eip155:338
			scheme upto
			meter json usage.total_tokens 2
		}
		reverse_proxy ${upstream.url}
	}
	handle_path /after/* {
		x402 {
			pay_to ${payTo}
			amount 10000
			network eip155:338
			scheme upto
			meter json usage.total_tokens 2
			settle after
		}
		reverse_proxy ${upstream.url}
	}
	handle_path /sponsored/* {
		x402 {
			pay_to ${payTo}
			amount 10000
			network eip155:338
			scheme upto
			meter json usage.total_tokens 2
			gas_sponsoring eip2612
		}
		reverse_proxy ${upstream.url}
	}
	handle_path /p2/* {
		x402 {
			pay_to ${payTo}
			amount 10000
			network eip155:338
			asset_transfer permit2
		}
		reverse_proxy ${upstream.url}
	}
	respond /healthcheck 200
}
`);
});
after(async () => {
  await caddy?.stop();
  await upstream?.close();
});

// approvePermit2 sends the buyer's one approval of Permit2, as the client
// package's createPermit2ApprovalTx builds it: a real transaction.
async function approvePermit2(account) {
  const chain = chainOf(caddy.info);
  const wallet = createWalletClient({ account, chain, transport: viemHttp(caddy.info.rpcUrl) });
  const hash = await wallet.sendTransaction(createPermit2ApprovalTx(caddy.info.token.address));
  const rc = await createPublicClient({ chain, transport: viemHttp(caddy.info.rpcUrl) }).waitForTransactionReceipt({ hash });
  assert.equal(rc.status, "success");
}

// buyerFetch is @x402/fetch with UptoEvmScheme for the account, allowed to
// sign up to the route's maximum on the devnet token; sent records each
// payment header it sends.
function buyerFetch(account, sent = [], schemeOptions) {
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
  });
  client.register("eip155:338", new UptoEvmScheme(account, schemeOptions));
  const recording = (input, init) => {
    const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (h.get("payment-signature")) sent.push(h.get("payment-signature"));
    return fetch(input, init);
  };
  return wrapFetchWithPayment(recording, client);
}

test("an upto route's 402 names the facilitator that settles", async () => {
  const res = await fetch(caddy.url + "/before/json");
  assert.equal(res.status, 402);
  const pr = decodeB64JSON(res.headers.get("payment-required"));
  const a = pr.accepts[0];
  assert.deepEqual([a.scheme, a.network, a.amount, a.payTo.toLowerCase()], ["upto", "eip155:338", "10000", payTo.toLowerCase()]);
  assert.equal(a.extra.assetTransferMethod, "permit2");
  assert.equal(a.extra.facilitatorAddress.toLowerCase(), caddy.info.signer.address.toLowerCase());
});

test("@x402/fetch's UptoEvmScheme pays what was metered", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey);
  await approvePermit2(buyer);
  const sent = [];
  const pay = buyerFetch(buyer, sent);
  for (const [path, charge] of [
    ["/before/header?amount=1234", 1234n],
    ["/before/header?amount=%240.0025", 2500n], // $0.0025 of a 6-decimal token
    ["/before/header?amount=25%25", 2500n],
    ["/before/json?tokens=321", 642n],
    ["/before/json?tokens=0", 0n],
    ["/before/json?tokens=99999", 10000n], // above the maximum: the maximum
    ["/after/json?tokens=50", 100n],
  ]) {
    const sellerBefore = await balanceOf(caddy.info, payTo);
    const buyerBefore = await balanceOf(caddy.info, buyer.address);
    const res = await pay(caddy.url + path);
    const body = await res.text();
    assert.equal(res.status, 200, `${path}: ${body}`);
    assert.equal(res.headers.get("settlement-overrides"), null, path);
    assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, charge, path);
    assert.equal(buyerBefore - await balanceOf(caddy.info, buyer.address), charge, path);
    if (path.startsWith("/before/")) {
      const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
      assert.equal(settle.success, true, path);
      assert.equal(settle.amount, String(charge), path);
      assert.equal(settle.transaction === "", charge === 0n, path);
    }
  }
  // A payment sent again is refused and moves nothing more.
  const last = sent[sent.length - 1];
  const sellerBefore = await balanceOf(caddy.info, payTo);
  const again = await fetch(caddy.url + "/after/json?tokens=50", { headers: { "payment-signature": last } });
  assert.equal(again.status, 402);
  assert.match(decodeB64JSON(again.headers.get("payment-required")).error, /already used/);
  assert.equal(await balanceOf(caddy.info, payTo), sellerBefore);
});

test("a server-sent-events answer arrives event by event and is charged at its end", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey);
  const pay = buyerFetch(buyer);
  const sellerBefore = await balanceOf(caddy.info, payTo);
  const res = await pay(caddy.url + "/after/sse?tokens=77");
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  let got = "";
  while (!got.includes("\n\n")) {
    const { value, done } = await reader.read();
    assert.ok(!done, "the stream ended before its first event");
    got += dec.decode(value);
  }
  assert.match(got, /"Hel"/);
  assert.doesNotMatch(got, /total_tokens/);
  assert.equal(await balanceOf(caddy.info, payTo), sellerBefore, "charged before the answer ended");
  releaseSSE();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    got += dec.decode(value);
  }
  assert.match(got, /"total_tokens":77/);
  assert.ok(got.endsWith("data: [DONE]\n\n"));
  assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 154n);
});

test("a buyer without a Permit2 allowance gets a 402 that says so", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[3].privateKey);
  const res = await buyerFetch(buyer)(caddy.url + "/before/json?tokens=1");
  assert.equal(res.status, 402);
  const pr = decodeB64JSON(res.headers.get("payment-required"));
  assert.match(pr.error, /Permit2 allowance required/);
  assert.match(pr.error, /0x000000000022D473030F116dDEE9F6B43aC78BA3/);
});

test("gas_sponsoring eip2612: a buyer without allowance signs an EIP-2612 permit with its payment, and pays no gas", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[4].privateKey);
  const chain = chainOf(caddy.info);
  const pub = createPublicClient({ chain, transport: viemHttp(caddy.info.rpcUrl) });
  const unpaid = await fetch(caddy.url + "/sponsored/json");
  const pr = decodeB64JSON(unpaid.headers.get("payment-required"));
  assert.equal(pr.extensions.eip2612GasSponsoring.info.version, "1");
  const gasBefore = await pub.getBalance({ address: buyer.address });
  const sellerBefore = await balanceOf(caddy.info, payTo);
  // The client reads the token's EIP-2612 nonce over RPC to sign the permit.
  const res = await buyerFetch(buyer, [], { rpcUrl: caddy.info.rpcUrl })(caddy.url + "/sponsored/json?tokens=40");
  const body = await res.text();
  assert.equal(res.status, 200, body);
  assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 80n);
  assert.equal(await pub.getBalance({ address: buyer.address }), gasBefore, "the buyer paid gas");
  const allowance = await pub.readContract({ address: caddy.info.token.address, functionName: "allowance",
    abi: [{ type: "function", name: "allowance", stateMutability: "view", inputs: [{ type: "address" }, { type: "address" }], outputs: [{ type: "uint256" }] }],
    args: [buyer.address, "0x000000000022D473030F116dDEE9F6B43aC78BA3"] });
  assert.ok(allowance > 0n, "the permit set no allowance");
});

test("asset_transfer permit2: @x402/fetch's ExactEvmScheme pays an exact route through Permit2", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[2].privateKey); // approved Permit2 above
  const unpaid = await fetch(caddy.url + "/p2/json");
  const a = decodeB64JSON(unpaid.headers.get("payment-required")).accepts[0];
  assert.deepEqual([a.scheme, a.amount, a.extra.assetTransferMethod], ["exact", "10000", "permit2"]);
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "10000" }] },
  });
  registerExactEvmScheme(client, { signer: buyer });
  const sent = [];
  const pay = wrapFetchWithPayment((input, init) => {
    const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (h.get("payment-signature")) sent.push(h.get("payment-signature"));
    return fetch(input, init);
  }, client);
  const sellerBefore = await balanceOf(caddy.info, payTo);
  const res = await pay(caddy.url + "/p2/json?tokens=5");
  const body = await res.text();
  assert.equal(res.status, 200, body);
  assert.ok(decodeB64JSON(sent[0]).payload.permit2Authorization, "the client did not sign through Permit2");
  const settle = decodePaymentResponseHeader(res.headers.get("payment-response"));
  assert.equal(settle.success, true);
  assert.equal(await balanceOf(caddy.info, payTo) - sellerBefore, 10000n);
});
