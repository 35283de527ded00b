// A minimal MCP stdio server whose one tool, "hang", never answers: it appends a line to the file
// named by HANG_MARKER (so a test sees each time the call reached it) and waits to be killed.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.method === 'initialize') {
    send({ id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} },
      serverInfo: { name: 'hanging', version: '1.0.0' } } });
  } else if (msg.method === 'tools/list') {
    send({ id: msg.id, result: { tools: [{ name: 'hang', description: 'Never answers.',
      inputSchema: { type: 'object' } }] } });
  } else if (msg.method === 'tools/call') {
    appendFileSync(process.env.HANG_MARKER, `${process.pid}\n`);
  } else if (msg.id !== undefined) {
    send({ id: msg.id, result: {} });
  }
});
