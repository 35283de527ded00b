// The official MCP TypeScript SDK client calling one tool of an MCP server over streamable HTTP,
// with a bearer key and a progress handler. Prints {result, progress} as JSON.
// Usage: node ts-client.mjs <sdk package dir> <url> <key> <tool> <input>
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [sdk, url, key, tool, input] = process.argv.slice(2);
const { Client } = await import(pathToFileURL(join(sdk, 'dist/esm/client/index.js')).href);
const { StreamableHTTPClientTransport } = await import(
  pathToFileURL(join(sdk, 'dist/esm/client/streamableHttp.js')).href);

const client = new Client({ name: 'cadre-test', version: '1.0.0' });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
await client.connect(transport);
const progress = [];
const result = await client.callTool({ name: tool, arguments: { input } }, undefined, {
  onprogress: (p) => progress.push(p),
  resetTimeoutOnProgress: true,
  timeout: 60000,
});
console.log(JSON.stringify({ result, progress }));
await transport.terminateSession();
await client.close();
