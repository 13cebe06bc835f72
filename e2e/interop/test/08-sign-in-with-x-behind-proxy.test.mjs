// Sign-In-With-X behind a TLS-terminating proxy: a second caddy serves
// https://localhost:<port> (tls internal) and proxies to ours over plain
// HTTP with another Host, sending X-Forwarded-Proto and X-Forwarded-Host.
// Ours trusts it (trusted_proxies), so its 402 names the public origin and
// @x402/extensions' client, which checks the challenge against the URL it
// fetched, signs in: the first request pays, a fresh client is served by
// its sign-in with no new transfer. (Before, the challenge said
// http://<inner host>, the client refused it and paid again.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { SIGN_IN_WITH_X, createSIWxClientExtension } from "@x402/extensions/sign-in-with-x";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, freePort, waitFor, balanceOf, newPayTo, decodeB64JSON } from "../lib/harness.mjs";

const payTo = newPayTo();
const PRICE = 10000n;
let inner, front, origin, ca;

before(async () => {
  const body = '`{"from":"{http.x402.from}","via":"{http.x402.access_via}","tx":"{http.x402.tx_hash}"}`';
  inner = await startCaddy((p) => `{
	admin 127.0.0.1:${p.admin}
	servers {
		trusted_proxies static 127.0.0.1/32 ::1/128
	}
	x402 {
		devnet {
			listen 127.0.0.1:${p.rpc}
			block_time 200ms
			info_file ${p.infoFile}
		}
	}
}
:${p.http} {
	x402 /data/* {
		pay_to ${payTo}
		amount ${PRICE}
		network eip155:338
		access 1h
	}
	respond /data/* ${body} 200
}
`);
  const tlsPort = await freePort();
  origin = `https://localhost:${tlsPort}`;
  front = await startCaddy((p) => `{
	admin 127.0.0.1:${p.admin}
	skip_install_trust
	auto_https disable_redirects
}
http://127.0.0.1:${p.http} {
	respond "front"
}
https://localhost:${tlsPort} {
	tls internal
	reverse_proxy 127.0.0.1:${inner.ports.http} {
		header_up Host {upstream_hostport}
	}
}
`);
  // The front's certificate is issued in the background.
  await waitFor(async () => {
    ca = readFileSync(join(front.dir, "caddy", "pki", "authorities", "local", "root.crt"));
    return (await tlsFetch(origin + "/")).status > 0;
  }, "the front's certificate");
});
after(async () => {
  await front?.stop();
  await inner?.stop();
});

// tlsFetch is fetch over the front's TLS, trusting its internal CA.
async function tlsFetch(input, init) {
  const req = new Request(input, init);
  const payload = req.body ? Buffer.from(await req.arrayBuffer()) : null;
  return new Promise((resolve, reject) => {
    const r = https.request(req.url, { method: req.method, headers: Object.fromEntries(req.headers), ca }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const headers = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        resolve(new Response(res.statusCode === 204 ? null : Buffer.concat(chunks), { status: res.statusCode, headers }));
      });
    });
    r.on("error", reject);
    r.end(payload);
  });
}

// recorder keeps, per request, the x402 headers a client sent.
function recorder() {
  const sent = [];
  const f = async (input, init) => {
    const h = new Request(input, init).headers;
    sent.push({ siwx: h.get(SIGN_IN_WITH_X), payment: h.get("payment-signature") });
    return tlsFetch(input, init);
  };
  return { sent, fetch: f };
}

function buyerFetch(account, rec) {
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: inner.info.token.address, maxAmountPerPayment: String(PRICE) }] },
  });
  registerExactEvmScheme(client, { signer: account });
  client.registerExtension(createSIWxClientExtension({ signers: [account] }));
  return wrapFetchWithPayment(rec.fetch, client);
}

test("behind a trusted TLS proxy: the 402 names the public origin, and the published client signs in", async () => {
  const res = await tlsFetch(origin + "/data/r");
  assert.equal(res.status, 402);
  const pr = decodeB64JSON(res.headers.get("payment-required"));
  assert.equal(pr.resource.url, origin + "/data/r");
  assert.equal((await res.json()).paymentRequirements.resource, origin + "/data/r");
  const info = pr.extensions[SIGN_IN_WITH_X].info;
  assert.equal(info.domain, new URL(origin).host);
  assert.equal(info.uri, origin + "/data/r");

  const buyer = privateKeyToAccount(inner.info.buyers[0].privateKey);
  const start = await balanceOf(inner.info, buyer.address);

  // First: the client signs in (refused: no grant yet), then pays.
  const rec1 = recorder();
  const first = await buyerFetch(buyer, rec1)(origin + "/data/a");
  const paid = await first.json();
  assert.equal(first.status, 200, JSON.stringify(paid));
  assert.deepEqual(rec1.sent.map((s) => [!!s.siwx, !!s.payment]), [[false, false], [true, false], [false, true]]);
  assert.match(paid.tx, /^0x[0-9a-f]{64}$/);
  const cookie = first.headers.get("set-cookie") ?? "";
  assert.match(cookie, /; Secure/, "the access cookie behind TLS is Secure: " + cookie);
  const afterPay = await balanceOf(inner.info, buyer.address);
  assert.equal(start - afterPay, PRICE);

  // A fresh client: signs in for the public origin, served, no payment.
  const rec2 = recorder();
  const second = await buyerFetch(buyer, rec2)(origin + "/data/b");
  const served = await second.json();
  assert.equal(second.status, 200, JSON.stringify(served));
  assert.deepEqual(rec2.sent.map((s) => [!!s.siwx, !!s.payment]), [[false, false], [true, false]]);
  assert.deepEqual(served, { from: buyer.address, via: "sign-in-with-x", tx: "" });
  assert.equal(await balanceOf(inner.info, buyer.address), afterPay, "no transfer after the first payment");
});
