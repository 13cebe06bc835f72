// x402 over MCP: an MCP server made with the official TypeScript SDK
// (@modelcontextprotocol/sdk, streamable HTTP, JSON and event-stream
// answers) behind our binary, which charges per tool call. The buyer is
// the SDK's own Client, paying with a payload built by @x402/core's
// x402Client with @x402/evm's exact scheme, as the MCP transport says
// (params._meta["x402/payment"]). The server never sees the payment; the
// price moves once; free methods and tools cost nothing; the same payment
// again and a tool that fails (settle after) move nothing. Discovery lists
// the tools (@x402/extensions' listResources and /.well-known/x402.json).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListToolsRequestSchema, CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { x402Client } from "@x402/core/client";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { withBazaar } from "@x402/extensions/bazaar";
import { privateKeyToAccount } from "viem/accounts";
import { startCaddy, devnetGlobal, balanceOf, newPayTo, freePort } from "../lib/harness.mjs";

// seen holds every tools/call the MCP servers got: tool name and _meta.
const seen = [];

const tools = [
  { name: "weather", description: "Weather by city", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "broken", description: "Always fails", inputSchema: { type: "object", properties: {} } },
  { name: "echo", description: "Free", inputSchema: { type: "object", properties: {} } },
];

// mcpServer runs a stateless MCP server on a free port, answering POSTs
// in JSON (enableJsonResponse) or as event streams.
async function mcpServer(json) {
  const port = await freePort();
  const srv = http.createServer(async (req, res) => {
    const server = new Server({ name: "weather", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      seen.push({ name: request.params.name, meta: request.params._meta ?? null });
      switch (request.params.name) {
        case "weather":
          return { content: [{ type: "text", text: `sunny in ${request.params.arguments.city}` }] };
        case "broken":
          return { content: [{ type: "text", text: "the weather service is down" }], isError: true };
        default:
          return { content: [{ type: "text", text: "free" }] };
      }
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((r) => srv.listen(port, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => srv.close(r)) };
}

const payJSON = newPayTo();
const paySSE = newPayTo();
let caddy, jsonServer, sseServer;
before(async () => {
  jsonServer = await mcpServer(true);
  sseServer = await mcpServer(false);
  caddy = await startCaddy((p) => devnetGlobal(p) + `
:${p.http} {
	x402_facilitator
	x402 /json/* {
		pay_to ${payJSON}
		network eip155:338
		settle before
		mcp_tool weather 0.01
		mcp_tool broken 0.02
	}
	x402 /sse/* {
		pay_to ${paySSE}
		network eip155:338
		mcp_tool weather 0.01
		mcp_tool broken 0.02
	}
	reverse_proxy /json/* ${jsonServer.url.slice("http://".length)}
	reverse_proxy /sse/* ${sseServer.url.slice("http://".length)}
}
`);
});
after(async () => {
  await caddy?.stop();
  await jsonServer?.close();
  await sseServer?.close();
});

async function connect(path) {
  const client = new Client({ name: "interop-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(caddy.url + path)));
  return client;
}

function payer() {
  const buyer = privateKeyToAccount(caddy.info.buyers[1].privateKey);
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: "eip155:338", asset: caddy.info.token.address, maxAmountPerPayment: "20000" }] },
  });
  registerExactEvmScheme(client, { signer: buyer });
  return { buyer, client };
}

// paymentRequired checks a PaymentRequired result and returns it.
function paymentRequired(result, payTo, amount, error) {
  assert.equal(result.isError, true, JSON.stringify(result));
  assert.equal(result.content[0].type, "text");
  assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
  const pr = result.structuredContent;
  assert.equal(pr.x402Version, 2);
  assert.equal(pr.error, error);
  assert.equal(pr.resource.url.startsWith("mcp://tool/"), true);
  assert.deepEqual(pr.accepts.map((a) => [a.scheme, a.network, a.amount, a.payTo.toLowerCase()]),
    [["exact", "eip155:338", amount, payTo.toLowerCase()]]);
  return pr;
}

for (const mode of [{ path: "/json/mcp", payTo: () => payJSON, after: false }, { path: "/sse/mcp", payTo: () => paySSE, after: true }]) {
  test(`an MCP SDK client pays a tool through our gateway (${mode.path}, settle ${mode.after ? "after" : "before"})`, async () => {
    const payTo = mode.payTo();
    const { buyer, client: x402 } = payer();
    const agent = await connect(mode.path); // initialize and notifications/initialized: free

    const list = await agent.listTools();
    assert.deepEqual(list.tools.map((t) => t.name), ["weather", "broken", "echo"]);
    assert.deepEqual(list.tools[0]._meta["x402/accepts"].map((a) => [a.amount, a.payTo.toLowerCase()]), [["10000", payTo.toLowerCase()]]);
    assert.equal(list.tools[2]._meta, undefined);

    const sellerBefore = await balanceOf(caddy.info, payTo);
    const buyerBefore = await balanceOf(caddy.info, buyer.address);
    const calls = seen.length;

    const unpaid = await agent.callTool({ name: "weather", arguments: { city: "Oslo" } });
    const pr = paymentRequired(unpaid, payTo, "10000",
      'Payment required to access this tool: call it again with the payment in params._meta["x402/payment"]');
    assert.equal(pr.resource.url, "mcp://tool/weather");
    assert.equal(pr.resource.description, "Weather by city");
    assert.equal(seen.length, calls, "the tool ran unpaid");

    const payload = await x402.createPaymentPayload(pr);
    const paid = await agent.callTool({ name: "weather", arguments: { city: "Oslo" }, _meta: { "x402/payment": payload, progressToken: 7 } });
    assert.equal(paid.isError, undefined, JSON.stringify(paid));
    assert.deepEqual(paid.content, [{ type: "text", text: "sunny in Oslo" }]);
    const settle = paid._meta["x402/payment-response"];
    assert.equal(settle.success, true);
    assert.equal(settle.network, "eip155:338");
    assert.equal(settle.payer.toLowerCase(), buyer.address.toLowerCase());
    assert.match(settle.transaction, /^0x[0-9a-f]{64}$/);
    // The server saw the call without the payment, its other _meta intact.
    assert.deepEqual(seen.at(-1), { name: "weather", meta: { progressToken: 7 } });
    assert.equal(await balanceOf(caddy.info, payTo), sellerBefore + 10000n);
    assert.equal(await balanceOf(caddy.info, buyer.address), buyerBefore - 10000n);

    // The same payment again: refused, nothing runs, nothing moves.
    const again = await agent.callTool({ name: "weather", arguments: { city: "Oslo" }, _meta: { "x402/payment": payload } });
    paymentRequired(again, payTo, "10000", "Authorization already used");
    assert.equal(seen.length, calls + 1);
    assert.equal(await balanceOf(caddy.info, payTo), sellerBefore + 10000n);

    // A tool that fails: settled with settle before (it was paid before
    // it ran), not at all with settle after.
    const prBroken = paymentRequired(await agent.callTool({ name: "broken", arguments: {} }), payTo, "20000",
      'Payment required to access this tool: call it again with the payment in params._meta["x402/payment"]');
    const failed = await agent.callTool({ name: "broken", arguments: {}, _meta: { "x402/payment": await x402.createPaymentPayload(prBroken) } });
    assert.equal(failed.isError, true);
    assert.deepEqual(failed.content, [{ type: "text", text: "the weather service is down" }]);
    const charged = mode.after ? 10000n : 30000n;
    assert.equal(failed._meta?.["x402/payment-response"]?.success, mode.after ? undefined : true);
    assert.equal(await balanceOf(caddy.info, payTo), sellerBefore + charged);

    // Free tools are free.
    assert.deepEqual((await agent.callTool({ name: "echo", arguments: {} })).content, [{ type: "text", text: "free" }]);
    assert.equal(await balanceOf(caddy.info, payTo), sellerBefore + charged);
    assert.equal(await balanceOf(caddy.info, buyer.address), buyerBefore - charged);
    await agent.close();
  });
}

test("@x402/extensions' listResources, search and /.well-known/x402.json list the tools", async () => {
  const bazaar = withBazaar(new HTTPFacilitatorClient({ url: caddy.url + "/v2/x402" })).extensions.bazaar;
  const list = await bazaar.listResources({ type: "mcp" });
  assert.deepEqual(list.items.map((i) => [i.resource.slice(caddy.url.length), i.type, i.extensions.bazaar.info.input.toolName, i.accepts[0].amount]),
    [["/json/*", "mcp", "weather", "10000"], ["/json/*", "mcp", "broken", "20000"], ["/sse/*", "mcp", "weather", "10000"], ["/sse/*", "mcp", "broken", "20000"]]);
  // Learnt from the tools/list answers that passed through.
  assert.deepEqual(list.items[0].extensions.bazaar.info.input.inputSchema, tools[0].inputSchema);
  assert.equal(list.items[0].description, "Weather by city");

  // bazaar.search: the tools whose words match, best first.
  const found = await bazaar.search({ query: "always fails", type: "mcp" });
  assert.deepEqual(found.resources.map((i) => [i.resource.slice(caddy.url.length), i.extensions.bazaar.info.input.toolName]),
    [["/json/*", "broken"], ["/sse/*", "broken"]]);
  assert.equal(found.pagination.cursor, null);

  const manifest = await (await fetch(caddy.url + "/.well-known/x402.json")).json();
  assert.deepEqual(manifest.items.map((i) => [i.resource.url, i.type, i.input.toolName, i.accepts]),
    list.items.map((i) => [i.resource, i.type, i.extensions.bazaar.info.input.toolName, i.accepts]));
});
