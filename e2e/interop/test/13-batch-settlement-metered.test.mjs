// A metered channel route (`scheme batch-settlement` with `meter json`)
// bought by the published client (@x402/fetch 2.27 with @x402/evm's
// channel client): each voucher reserves the price, the answer is
// metered, and PAYMENT-RESPONSE says what was charged (chargedAmount) and
// where the channel stands (chargedCumulativeAmount), so the client signs
// its next voucher from the metered cumulative: one payment per request,
// no corrective 402. The claim round pays the seller the sum of the
// charges, not of the prices.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { createRequire } from "node:module";
import { privateKeyToAccount } from "viem/accounts";
import { createPublicClient, http as viemHttp } from "viem";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, waitFor, decodeB64JSON, freePort } from "../lib/harness.mjs";

const require = createRequire(import.meta.url);
const { BatchSettlementEvmScheme: ClientScheme } = require("@x402/evm/batch-settlement/client");

const PRICE = 10000n;
const network = "eip155:338";
const payTo = newPayTo();
let caddy, upstream;

// The seller's upstream, a metered API that knows nothing of x402.
async function startUpstream() {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, "http://x");
    if (u.pathname === "/header") {
      res.setHeader("Settlement-Overrides", JSON.stringify({ amount: u.searchParams.get("amount") }));
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ answer: "by header" }));
    } else if (u.pathname === "/json") {
      res.setHeader("Content-Type", "application/json");
      res.end(`{"answer":"42","usage":{"total_tokens":${u.searchParams.get("tokens")}}}`);
    } else {
      res.statusCode = 502;
      res.end("upstream failed");
    }
  });
  await new Promise((r) => server.listen(port, "127.0.0.1", r));
  return { url: `127.0.0.1:${port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

before(async () => {
  upstream = await startUpstream();
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	handle_path /metered/* {
		x402 {
			pay_to ${payTo}
			amount ${PRICE}
			network ${network}
			scheme batch-settlement
			meter json usage.total_tokens 2
			claim_every 1s
		}
		reverse_proxy ${upstream.url}
	}
	respond /healthcheck "ok"
}
`);
});
after(async () => {
  await caddy?.stop();
  await upstream?.close();
});

test("the published channel client pays metered answers: each voucher from the metered cumulative, no corrective 402", async () => {
  const buyer = privateKeyToAccount(caddy.info.buyers[0].privateKey);
  const chain = { id: 338, name: "devnet", nativeCurrency: { name: "CRO", symbol: "CRO", decimals: 18 }, rpcUrls: { default: { http: [caddy.info.rpcUrl] } } };
  const reader = createPublicClient({ chain, transport: viemHttp(caddy.info.rpcUrl) });
  const signer = { address: buyer.address, signTypedData: (m) => buyer.signTypedData(m), readContract: (a) => reader.readContract(a) };
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network, asset: caddy.info.token.address, maxAmountPerPayment: "1000000" }] },
  }).register(network, new ClientScheme(signer, { depositPolicy: { depositMultiplier: 20 } }));
  const sent = [];
  const statuses = [];
  const pay = wrapFetchWithPayment(async (input, init) => {
    const req = new Request(input, init);
    const h = req.headers.get("payment-signature");
    if (h) sent.push(decodeB64JSON(h).payload);
    const res = await fetch(req);
    if (h) statuses.push(res.status); // the status of each paid request
    return res;
  }, client);

  const cases = [
    ["/metered/json?tokens=100", 200, 200n],
    ["/metered/json?tokens=1234", 200, 2468n],
    ["/metered/header?amount=777", 200, 777n],
    ["/metered/header?amount=50000", 200, PRICE], // above the price: capped
    ["/metered/json?tokens=0", 200, 0n],
    ["/metered/fail", 502, 0n], // an error answer charges nothing
    ["/metered/json?tokens=7", 200, 14n],
  ];
  let cumulative = 0n;
  for (const [path, status, charge] of cases) {
    const res = await pay(caddy.url + path);
    const body = await res.text();
    assert.equal(res.status, status, `${path}: ${body}`);
    const receipt = decodeB64JSON(res.headers.get("payment-response"));
    cumulative += charge;
    assert.equal(receipt.extra.chargedAmount, charge.toString(), path);
    assert.equal(receipt.extra.channelState.chargedCumulativeAmount, cumulative.toString(), path);
  }
  // One payment per request: a deposit, then vouchers, each signed from
  // the metered cumulative (price above it), never a corrective 402.
  assert.equal(sent.length, cases.length, `payments sent: ${sent.map((p) => p.type)}; statuses ${statuses}`);
  assert.ok(!statuses.includes(402), `statuses ${statuses}`);
  assert.equal(sent[0].type, "deposit");
  let signedFrom = 0n;
  for (const [i, p] of sent.entries()) {
    assert.equal(BigInt(p.voucher.maxClaimableAmount), signedFrom + PRICE, `voucher ${i}`);
    signedFrom += cases[i][2];
  }
  await waitFor(async () => (await balanceOf(caddy.info, payTo)) === cumulative, "the claim round to pay the seller", 30000);
  assert.equal(await balanceOf(caddy.info, payTo), cumulative, "the seller gets the charges, not the prices");
});
