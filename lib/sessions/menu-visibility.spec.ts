import { z } from 'zod';
import { NO_GRANTS, type McpGrants } from '../access/access-requirement.js';
import { defineMachine } from '../machines/define-machine.js';
import { TableMachineEngine } from '../machines/table-machine.engine.js';
import type { McpMachineConfig } from '../machines/machine.interface.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpSessionKind } from './mcp-session.js';
import { McpMenuVisibility, type McpMenuDefinitions, type McpMenuMachine } from './menu-visibility.js';

// A session-keyed cart and a handle-keyed parcel with a final state a tool is still bound to
// (`delivered`: returns) and one without (`lost`).
const cart: McpMachineConfig = {
  id: 'cart',
  initial: 'open',
  states: { open: { on: { CHECKOUT: 'paid' } }, paid: { type: 'final' } },
};
const parcel: McpMachineConfig = {
  id: 'parcel',
  initial: 'packed',
  states: {
    packed: { on: { SHIP: 'shipped' } },
    shipped: { on: { DELIVER: 'delivered', LOSE: 'lost' } },
    delivered: { type: 'final' },
    lost: { type: 'final' },
  },
};

const machine = (config: McpMachineConfig, handleKeyed: boolean): McpMenuMachine => {
  const engine = new TableMachineEngine(defineMachine(config, handleKeyed ? { stateHandleKey: 'parcelId' } : {}));
  return { engine, initial: engine.initial().state, handleKeyed };
};

const handler = (name: string, extra: Partial<McpHandlerDefinition>): McpHandlerDefinition => ({
  kind: 'tool',
  name,
  inputSchema: z.object({}),
  role: { kind: 'ungated' },
  source: `Spec.${name}`,
  invoke: async () => undefined,
  ...extra,
});
const tool = (name: string, extra: Partial<McpToolDefinition> = {}): McpToolDefinition =>
  ({ ...handler(name, extra), kind: 'tool', description: name, inputJsonSchema: { type: 'object' }, ...extra }) as McpToolDefinition;
const bound = (machine: string, ...states: string[]) => ({ role: { kind: 'bound' as const, machine, states } });

const tools = [
  tool('help'),
  tool('cart.checkout', { ...bound('cart', 'open'), compactDescription: 'Check out.' }),
  tool('cart.receipt', bound('cart', 'paid')),
  tool('parcel.pack', {
    role: { kind: 'start', machine: 'parcel', handleKey: 'parcelId', transactional: false },
    compactDescription: 'Pack.',
  }),
  tool('parcel.ship', bound('parcel', 'packed')),
  tool('parcel.track', bound('parcel', 'shipped')),
  tool('parcel.return', bound('parcel', 'delivered')),
];
const prompts = [
  { ...handler('greet', {}), kind: 'prompt', arguments: [], completers: {} },
  { ...handler('parcel.complain', bound('parcel', 'lost')), kind: 'prompt', arguments: [], completers: {} },
] as McpPromptDefinition[];
const resources = [
  { ...handler('cart.items', bound('cart', 'open')), kind: 'resource', uri: 'cart://items', completers: {} },
] as McpResourceDefinition[];

const definitions = (handleToolsMenu: 'used' | 'all' = 'used'): McpMenuDefinitions => ({
  tools,
  prompts,
  resources,
  machines: new Map([
    ['cart', machine(cart, false)],
    ['parcel', machine(parcel, true)],
  ]),
  handleToolsMenu,
});
const view = (states: Record<string, string[]>, kind: McpSessionKind = 'stateful', grants: McpGrants = NO_GRANTS) => ({
  kind,
  states: new Map(Object.entries(states)),
  grants,
});
const names = (visibility: McpMenuVisibility, states: Record<string, string[]>, kind?: McpSessionKind, grants?: McpGrants) =>
  visibility.tools(view(states, kind, grants)).map(({ tool, compact }) => `${tool.name}${compact ? '~' : ''}`);
const holding = (scopes: string[], roles: string[] = []): McpGrants => ({ scopes: new Set(scopes), roles: new Set(roles) });

describe('McpMenuVisibility', () => {
  const visibility = new McpMenuVisibility(definitions());

  it('shows unbound and start tools always, bound tools while an instance is in one of their states', () => {
    expect(names(visibility, {})).toEqual(['help', 'parcel.pack~']);
    expect(names(visibility, { cart: ['open'] })).toEqual(['help', 'cart.checkout~', 'parcel.pack~']);
    expect(names(visibility, { cart: ['paid'], parcel: ['shipped'] })).toEqual(['help', 'cart.receipt', 'parcel.pack', 'parcel.track']);
  });

  it('shows the tools of every state the followed handles are in, in declaration order', () => {
    expect(names(visibility, { parcel: ['shipped', 'packed', 'delivered'] })).toEqual([
      'help',
      'parcel.pack',
      'parcel.ship',
      'parcel.track',
      'parcel.return',
    ]);
  });

  it('shows a compact description only while every instance of the machine is in its initial state', () => {
    expect(names(visibility, { parcel: ['packed'] })).toEqual(['help', 'parcel.pack~', 'parcel.ship']);
    expect(names(visibility, { parcel: ['packed', 'shipped'] })).toEqual(['help', 'parcel.pack', 'parcel.ship', 'parcel.track']);
  });

  it("shows every tool of a handle-keyed machine to a stateless session and with handleToolsMenu: 'all'", () => {
    const all = ['help', 'parcel.pack~', 'parcel.ship', 'parcel.track', 'parcel.return'];
    expect(names(visibility, {}, 'stateless')).toEqual(all);
    expect(names(new McpMenuVisibility(definitions('all')), {})).toEqual(all);
  });

  it('filters prompts and resources by the same rules', () => {
    expect(visibility.prompts(view({})).map(({ name }) => name)).toEqual(['greet']);
    expect(visibility.prompts(view({ parcel: ['lost'] })).map(({ name }) => name)).toEqual(['greet', 'parcel.complain']);
    expect(visibility.resources(view({ cart: ['open'] })).map(({ name }) => name)).toEqual(['cart.items']);
    expect(visibility.resources(view({ cart: ['paid'] }))).toEqual([]);
  });

  it('tells a change of any list by its signature', () => {
    const [toolsBefore, promptsBefore, resourcesBefore] = visibility.signature(view({ cart: ['open'], parcel: ['shipped'] }));
    const [toolsAfter, promptsAfter, resourcesAfter] = visibility.signature(view({ cart: ['paid'], parcel: ['shipped'] }));
    expect(toolsAfter).not.toBe(toolsBefore);
    expect(promptsAfter).toBe(promptsBefore);
    expect(resourcesAfter).not.toBe(resourcesBefore);
    expect(visibility.signature(view({ parcel: ['packed'] }))[0]).not.toBe(
      visibility.signature(view({ parcel: ['packed', 'shipped'] }))[0],
    );
  });

  it('ends a handle in a final state no tool is bound to, not in one a tool still serves', () => {
    expect(visibility.ended('parcel', 'delivered')).toBe(false);
    expect(visibility.ended('parcel', 'lost')).toBe(true);
    expect(visibility.ended('parcel', 'shipped')).toBe(false);
    expect(visibility.ended('parcel', 'renamed')).toBe(false);
  });
});

describe('McpMenuVisibility with scopes and roles', () => {
  const requires = (scopes: string[], roles: string[] = []) => ({ access: { scopes, roles } });
  const scoped = new McpMenuVisibility({
    ...definitions(),
    tools: [
      tool('help'),
      tool('parcel.pack', { role: { kind: 'start', machine: 'parcel', handleKey: 'parcelId', transactional: false } }),
      tool('parcel.ship', { ...bound('parcel', 'packed'), ...requires(['parcels:ship']) }),
      tool('parcel.audit', requires(['parcels:read', 'audit:read'])),
      tool('parcel.override', requires([], ['supervisor', 'admin'])),
    ],
    prompts: [
      { ...handler('parcel.brief', requires(['parcels:read'])), kind: 'prompt', arguments: [], completers: {} },
    ] as McpPromptDefinition[],
    resources: [
      {
        ...handler('parcel.log', { ...bound('parcel', 'packed'), ...requires(['parcels:read']) }),
        kind: 'resource',
        uri: 'parcel://log',
        completers: {},
      },
    ] as McpResourceDefinition[],
  });

  it('shows a tool that requires scopes only to a caller holding all of them, and only in its states', () => {
    expect(names(scoped, { parcel: ['packed'] })).toEqual(['help', 'parcel.pack']);
    expect(names(scoped, { parcel: ['packed'] }, 'stateful', holding(['parcels:ship']))).toEqual(['help', 'parcel.pack', 'parcel.ship']);
    expect(names(scoped, { parcel: ['shipped'] }, 'stateful', holding(['parcels:ship']))).toEqual(['help', 'parcel.pack']);
    expect(names(scoped, {}, 'stateful', holding(['parcels:read']))).toEqual(['help', 'parcel.pack']);
    expect(names(scoped, {}, 'stateful', holding(['parcels:read', 'audit:read']))).toEqual(['help', 'parcel.pack', 'parcel.audit']);
  });

  it('shows a tool that names roles to a caller holding one of them', () => {
    expect(names(scoped, {}, 'stateful', holding([], ['clerk']))).toEqual(['help', 'parcel.pack']);
    expect(names(scoped, {}, 'stateful', holding([], ['admin']))).toEqual(['help', 'parcel.pack', 'parcel.override']);
  });

  it('keeps what requires scopes out of a stateless menu too, which otherwise lists every handle-keyed tool', () => {
    expect(names(scoped, {}, 'stateless')).toEqual(['help', 'parcel.pack']);
    expect(names(scoped, {}, 'stateless', holding(['parcels:ship']))).toEqual(['help', 'parcel.pack', 'parcel.ship']);
  });

  it('filters prompts and resources by the grants, and a change of grants changes the signature', () => {
    expect(scoped.prompts(view({}))).toEqual([]);
    expect(scoped.prompts(view({}, 'stateful', holding(['parcels:read']))).map(({ name }) => name)).toEqual(['parcel.brief']);
    expect(scoped.resources(view({ parcel: ['packed'] }, 'stateful', holding(['parcels:read']))).map(({ name }) => name)).toEqual([
      'parcel.log',
    ]);
    expect(scoped.resources(view({ parcel: ['shipped'] }, 'stateful', holding(['parcels:read'])))).toEqual([]);
    const before = scoped.signature(view({ parcel: ['packed'] }));
    const after = scoped.signature(view({ parcel: ['packed'] }, 'stateful', holding(['parcels:ship', 'parcels:read'])));
    expect(after.map((list, index) => list !== before[index])).toEqual([true, true, true]);
  });
});

describe('McpMenuVisibility with decision tools (@McpApproval)', () => {
  const approval = { waitIn: 'held', approve: 'parcel.release', reject: 'parcel.refuse', crossTenantApprovers: false };
  const approvers = { scopes: ['parcels:release'], roles: [] };
  const decision = (name: string, verdict: 'approve' | 'reject', access: McpToolDefinition['access']) =>
    tool(name, {
      role: {
        kind: 'transition',
        machine: 'parcel',
        states: ['shipped'],
        event: 'DELIVER',
        transactional: false,
        decision: { verdict, of: 'parcel.deliver', approval },
      },
      access,
    });
  const deciding = new McpMenuVisibility({
    ...definitions(),
    tools: [
      tool('help'),
      decision('parcel.release', 'approve', approvers),
      decision('parcel.refuse', 'reject', { ...approvers, orRequester: true }),
    ],
  });
  const shown = (states: Record<string, string[]>, grants: McpGrants, decisions?: string[]) =>
    deciding
      .tools({ ...view(states, 'stateful', grants), ...(decisions && { decisions: new Set(decisions) }) })
      .map(({ tool }) => tool.name);

  it('shows them while something waits that the caller may decide, whatever the session follows', () => {
    expect(shown({}, holding(['parcels:release']))).toEqual(['help']);
    expect(shown({}, holding(['parcels:release']), ['parcel.release', 'parcel.refuse'])).toEqual([
      'help',
      'parcel.release',
      'parcel.refuse',
    ]);
  });

  it('shows the requester the reject tool of their own request without the approvers’ grants, never the approve tool', () => {
    expect(shown({ parcel: ['shipped'] }, NO_GRANTS)).toEqual(['help']);
    expect(shown({ parcel: ['shipped'] }, NO_GRANTS, ['parcel.refuse'])).toEqual(['help', 'parcel.refuse']);
  });

  it('shows them to an approver who follows the waiting instance, as any bound tool, and tells a change of what waits apart', () => {
    expect(shown({ parcel: ['shipped'] }, holding(['parcels:release']))).toEqual(['help', 'parcel.release', 'parcel.refuse']);
    const before = deciding.signature({ ...view({}, 'stateful', NO_GRANTS) });
    const after = deciding.signature({ ...view({}, 'stateful', NO_GRANTS), decisions: new Set(['parcel.refuse']) });
    expect(after[0]).not.toBe(before[0]);
  });
});
