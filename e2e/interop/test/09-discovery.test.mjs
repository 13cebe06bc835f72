// Discovery: @x402/extensions 2.x's bazaar client lists our routes from
// the facilitator's /discovery/resources, the same routes
// /.well-known/x402.json lists, and another seller's resource once a
// paying @x402/fetch client echoed its bazaar declaration (an
// @x402/express seller settling through our facilitator).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import express from "express";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { x402Client, wrapFetchWithPayment } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { withBazaar, declareDiscoveryExtension, bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, listen } from "../lib/harness.mjs";

const payTo = newPayTo();
let caddy;
before(async () => {
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402_facilitator
	x402 /weather {
		pay_to ${payTo}
		amount 10000
		network eip155:338
		description "interop: discovery"
		mime_type application/json
		input_schema \`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}\`
		input_example \`{"city":"Paris"}\`
		output_example \`{"temp":20}\`
	}
	respond /weather "{\\"temp\\":20}" 200
}
`);
});
after(async () => caddy?.stop());

// Our site has no host name: discovery lists it under localhost (from the
// configuration, never from the request's Host), on the port it listens on.
const listed = () => caddy.url.replace("//127.0.0.1:", "//localhost:");

const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: caddy.url + "/v2/x402" })).extensions.bazaar;

test("listResources of @x402/extensions lists our routes as /.well-known/x402.json does", async () => {
  const list = await bazaar().listResources();
  assert.equal(list.x402Version, 2);
  assert.deepEqual(list.pagination, { limit: 100, offset: 0, total: 1 });
  const [item] = list.items;
  assert.equal(item.resource, listed() + "/weather");
  assert.equal(item.type, "http");
  assert.equal(item.description, "interop: discovery");
  assert.deepEqual(item.accepts.map((a) => [a.scheme, a.network, a.amount, a.asset.toLowerCase(), a.payTo.toLowerCase()]),
    [["exact", "eip155:338", "10000", caddy.info.token.address.toLowerCase(), payTo.toLowerCase()]]);
  assert.deepEqual(item.extensions.bazaar.info, {
    input: { type: "http", queryParams: { city: "Paris" } },
    output: { type: "json", example: { temp: 20 } },
  });

  const wk = await fetch(caddy.url + "/.well-known/x402.json");
  assert.equal(wk.status, 200);
  const manifest = await wk.json();
  assert.equal(manifest.x402Version, 2);
  assert.deepEqual(manifest.items.map((i) => [i.resource.url, i.type, i.accepts]),
    list.items.map((i) => [i.resource, i.type, i.accepts]));
  assert.deepEqual(manifest.items[0].input.queryParams,
    { type: "object", properties: { city: { type: "string" } }, required: ["city"] });

  // The published client's parameters: type filter and paging.
  assert.equal((await bazaar().listResources({ type: "mcp" })).items.length, 0);
  assert.deepEqual((await bazaar().listResources({ limit: 1, offset: 1 })).items, []);
  await assert.rejects(bazaar().listResources({ limit: -1 }),
    /Facilitator listDiscoveryResources failed \(400\): \{"error":"limit must be a whole number from 1/);
});

test("another seller's resource is cataloged from the declaration its paying client echoed", async () => {
  const sellerPayTo = newPayTo();
  const token = caddy.info.token;
  const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: caddy.url + "/v2/x402" }))
    .register("eip155:338", new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension);
  const app = express();
  app.use(paymentMiddleware({
    "GET /forecast": {
      accepts: {
        scheme: "exact",
        network: "eip155:338",
        payTo: sellerPayTo,
        price: { amount: "20000", asset: token.address, extra: { name: token.name, version: token.version } },
      },
      description: "interop: cataloged forecast",
      extensions: declareDiscoveryExtension({
        input: { days: "3" },
        inputSchema: { properties: { days: { type: "string" } }, required: ["days"] },
        output: { example: { forecast: ["sun"] } },
      }),
    },
  }, server));
  app.get("/forecast", (req, res) => res.json({ forecast: ["sun"] }));
  const seller = await listen(app);
  try {
    const buyer = privateKeyToAccount(caddy.info.buyers[3].privateKey);
    const client = x402Client.fromConfig({
      schemes: [],
      spendControls: { allowedAssets: [{ network: "eip155:338", asset: token.address, maxAmountPerPayment: "20000" }] },
    });
    registerExactEvmScheme(client, { signer: buyer });
    const before = await balanceOf(caddy.info, sellerPayTo);
    const res = await wrapFetchWithPayment(fetch, client)(seller.url + "/forecast?days=3");
    assert.equal(res.status, 200, await res.text());
    assert.equal(await balanceOf(caddy.info, sellerPayTo) - before, 20000n);

    const list = await bazaar().listResources({ type: "http" });
    assert.equal(list.pagination.total, 2);
    const item = list.items.find((i) => i.resource === seller.url + "/forecast");
    assert.ok(item, JSON.stringify(list.items.map((i) => i.resource)));
    assert.equal(item.description, "interop: cataloged forecast");
    assert.deepEqual(item.accepts.map((a) => [a.network, a.amount, a.payTo.toLowerCase()]),
      [["eip155:338", "20000", sellerPayTo.toLowerCase()]]);
    assert.deepEqual(item.extensions.bazaar.info.input, { type: "http", method: "GET", queryParams: { days: "3" } });
    // Our own route stays first; the filter by payee finds the seller's.
    assert.equal(list.items[0].resource, listed() + "/weather");
    const mine = await bazaar().listResources({ payTo: sellerPayTo });
    assert.deepEqual(mine.items.map((i) => i.resource), [seller.url + "/forecast"]);
    // The origin's manifest lists only the origin's own routes.
    const manifest = await (await fetch(caddy.url + "/.well-known/x402.json")).json();
    assert.deepEqual(manifest.items.map((i) => i.resource.url), [listed() + "/weather"]);
  } finally {
    await seller.close();
  }
});
