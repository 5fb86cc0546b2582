// Drives the sample (SAMPLE_AUTH=jwt) with real SDK clients through the 0.4 contract: teams, four eyes, tasks.
// Usage: node drive.mjs jwks            -> serves a JWKS on 127.0.0.1:4999, prints env for the sample, keeps running
//        node drive.mjs run <mcp-url>   -> runs the scenarios against a sample started with that env
import { createServer } from 'node:http';
import { writeFileSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema, GetTaskPayloadResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import * as jose from 'jose';

const KEYFILE = '/tmp/drive-key.json';
const ISSUER = 'http://127.0.0.1:4999';

if (process.argv[2] === 'jwks') {
  const { publicKey, privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  writeFileSync(KEYFILE, JSON.stringify(await jose.exportJWK(privateKey)));
  createServer((req, res) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ keys: [jwk] })); }).listen(4999, '127.0.0.1');
  console.log(`SAMPLE_AUTH=jwt SAMPLE_JWT_ISSUER=${ISSUER} SAMPLE_JWT_JWKS_URL=${ISSUER}/jwks`);
} else {
  const url = process.argv[3];
  const key = await jose.importJWK(JSON.parse(readFileSync(KEYFILE, 'utf8')), 'RS256');
  const token = (sub, scope, org) => new jose.SignJWT({ scope, ...(org ? { org } : {}) }).setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(ISSUER).setSubject(sub).setAudience(url).setIssuedAt().setExpirationTime('10m').sign(key);
  const connect = async (sub, scope, org) => {
    const t = await token(sub, scope, org);
    const client = new Client({ name: `drive-${sub}`, version: '1' }, { capabilities: { elicitation: {} } });
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++; });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${t}` } } }));
    client.changed = () => changed;
    return client;
  };
  const call = (c, name, args) => c.callTool({ name, arguments: args });
  const text = (r) => (r.content ?? []).map((p) => p.text).join(' ');
  const names = async (c) => (await c.listTools()).tools.map((t) => t.name).sort();
  const show = (label, v) => console.log(label.padEnd(44), typeof v === 'string' ? v : JSON.stringify(v));

  const alice = await connect('alice', 'payments:refund workflows:read', 'acme');
  const bob = await connect('bob', 'payments:refund payments:approve', 'acme');
  const aliceBoss = await connect('alice', 'payments:refund payments:approve', 'acme');
  const eve = await connect('eve', 'payments:refund payments:approve', 'other');
  const auth = await call(alice, 'payment.authorize', { amount: 500, currency: 'EUR' });
  const paymentId = auth.structuredContent?.paymentId ?? JSON.parse(text(auth)).paymentId;
  show('authorize', { paymentId, isError: auth.isError ?? false });
  show('bob (teammate) capture', text(await call(bob, 'payment.capture', { paymentId })).slice(0, 80));
  show('eve (other org) status', text(await call(eve, 'payment.status', { paymentId })).slice(0, 100));
  const big = await call(alice, 'payment.refund', { paymentId, amount: 300 });
  show('alice refund 300 (above threshold)', { isError: big.isError ?? false, text: text(big).slice(0, 120) });
  show('status while pending', (await call(alice, 'payment.status', { paymentId })).structuredContent);
  show('alice menu', await names(alice));
  show('bob menu', await names(bob));
  const self = await call(aliceBoss, 'payment.approve_refund', { paymentId });
  show('alice approves own (with scope)', { isError: self.isError ?? false, text: text(self).slice(0, 140) });
  const ok = await call(bob, 'payment.approve_refund', { paymentId });
  show('bob approves', { isError: ok.isError ?? false, text: text(ok).slice(0, 100) });
  show('status after approval', (await call(alice, 'payment.status', { paymentId })).structuredContent);
  // Tasks: a refund task above the threshold waits; bob rejects; the task completes with DECLINED.
  const created = await alice.request({ method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount: 150 }, task: { ttl: 600000 } } }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  show('refund task created', created.task);
  await new Promise((r) => setTimeout(r, 500));
  show('tasks/get (alice)', await alice.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema));
  try { show('tasks/get (eve)', await eve.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)); } catch (e) { show('tasks/get (eve)', String(e.message).slice(0, 100)); }
  show('bob rejects', text(await call(bob, 'payment.reject_refund', { paymentId, reason: 'duplicate' })).slice(0, 100));
  await new Promise((r) => setTimeout(r, 500));
  show('tasks/get after reject', await alice.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema));
  show('tasks/result', await alice.request({ method: 'tasks/result', params: { taskId } }, GetTaskPayloadResultSchema));
  show('final status', (await call(alice, 'payment.status', { paymentId })).structuredContent);
  show('list_changed alice/bob', [alice.changed(), bob.changed()]);
  for (const c of [alice, bob, aliceBoss, eve]) await c.close();
}
