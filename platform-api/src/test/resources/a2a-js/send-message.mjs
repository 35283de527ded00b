// Sends one A2A 1.0 SendMessage to Cadre with the official A2A JS SDK (@a2a-js/sdk 1.3.0, installed
// by ./test outside the clone) exactly as its users call it: no configuration, so the spec's default
// (returnImmediately false: the server waits) applies. Prints {"ms": …, "id": …, "state": …, "text": …}.
// Usage: node send-message.mjs <base-url> <api-key> <agent> <text> [returnImmediately]
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Role, taskStateToJSON } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';

const [base, key, agent, text, returnImmediately] = process.argv.slice(2);
const withKey = (url, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('Authorization', 'Bearer ' + key);
  return fetch(url, { ...init, headers });
};
const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
  cardResolver: new DefaultAgentCardResolver({ fetchImpl: withKey }),
}));
const client = await factory.createFromUrl(base);
const request = {
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
    metadata: { agent },
  },
};
if (returnImmediately === 'true') {
  request.configuration = { returnImmediately: true, acceptedOutputModes: ['text/plain'] };
}
const t0 = Date.now();
const result = await client.sendMessage(request);
const ms = Date.now() - t0;
const task = result?.$case === 'task' ? result.value : result?.task ?? result;
const state = task?.status?.state;
const artifactText = (task?.artifacts ?? [])
  .flatMap((a) => a.parts ?? [])
  .map((p) => (p.content?.$case === 'text' ? p.content.value : p.text ?? ''))
  .join('\n');
console.log(JSON.stringify({
  ms,
  id: task?.id,
  state: typeof state === 'number' ? taskStateToJSON(state) : state,
  text: artifactText,
}));
