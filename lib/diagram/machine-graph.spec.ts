import { createMachine } from 'xstate';
import { defineMachine } from '../machines/define-machine.js';
import { mermaidUnknownHighlight } from '../machines/machines.messages.js';
import { activeNodes, graphNodes, machineGraph, nodeAt, pathOf, type DiagramNode } from './machine-graph.js';
import { toolsByEdge } from './transition-tools.js';
import { claimConfig } from './diagram-machines.fixture.js';

/** Every edge as `source --kind:event[guard]--> targets`, the shape a reader of the graph depends on. */
const edgesOf = (root: DiagramNode): string[] =>
  graphNodes(root).flatMap((node) =>
    node.edges.map(
      (edge) =>
        `${pathOf(node).join('.')} --${edge.kind}:${edge.event}${edge.guard ? `[${edge.guard}]` : ''}--> ${edge.targets.map((target) => pathOf(target).join('.')).join(',')}`,
    ),
  );

describe('machineGraph', () => {
  it('resolves the targets and initial states of a plain config as XState does', () => {
    const plain = machineGraph(defineMachine(claimConfig));
    const xstate = machineGraph(defineMachine(createMachine(claimConfig as Parameters<typeof createMachine>[0])));
    expect(edgesOf(plain)).toEqual([
      'draft --on:SUBMIT--> review',
      'review --on:WITHDRAW--> draft',
      'review --on:ESCALATE--> review.finance',
      'review --onDone:onDone--> approved',
      'review.legal --on:SIGN--> review.finance',
      'review.legal --on:ESCALATE--> rejected',
      'review.finance --on:SIGN[withinBudget]--> review.signed',
      'approved --on:PAY--> paid',
      'approved --always:always[prepaid]--> paid',
    ]);
    expect(edgesOf(xstate)).toEqual(edgesOf(plain));
    expect(
      graphNodes(plain)
        .map((node) => node.initial && pathOf(node.initial).join('.'))
        .filter(Boolean),
    ).toEqual(['draft', 'review.legal']);
  });

  it('reads `after` transitions as edges named by their delay, from a plain config and from XState alike', () => {
    const config = {
      id: 'hold',
      initial: 'held',
      states: {
        held: { after: { ttl: 'lapsed', 500: { target: 'released', guard: 'early' } }, on: { RELEASE: 'released' } },
        lapsed: { type: 'final' as const },
        released: { type: 'final' as const },
      },
    };
    const plain = machineGraph(defineMachine(config));
    const xstate = machineGraph(defineMachine(createMachine(config as Parameters<typeof createMachine>[0])));
    expect(edgesOf(plain)).toEqual(['held --on:RELEASE--> released', 'held --after:500[early]--> released', 'held --after:ttl--> lapsed']);
    expect(edgesOf(xstate)).toEqual(edgesOf(plain));
  });

  it('reads a stored state value as its active nodes, and refuses one the machine does not have', () => {
    const root = machineGraph(defineMachine(claimConfig));
    expect(activeNodes(root, 'claim', 'review.finance').map((node) => pathOf(node).join('.'))).toEqual(['review', 'review.finance']);
    expect(() => activeNodes(root, 'claim', 'review.nowhere')).toThrow(mermaidUnknownHighlight('claim', 'review.nowhere'));
    expect(nodeAt(root, 'review.legal')).toBe(root.states.review.states.legal);
    expect(nodeAt(root, 'nowhere')).toBeUndefined();
  });
});

describe('toolsByEdge', () => {
  it('names the tools that fire each transition, including a parent transition fired from a child', () => {
    const root = machineGraph(defineMachine(claimConfig));
    const firing = toolsByEdge(root, 'claim', [
      { name: 'claim.submit', role: { kind: 'transition', machine: 'claim', states: ['draft'], event: 'SUBMIT' } },
      { name: 'claim.sign', role: { kind: 'transition', machine: 'claim', states: ['review'], event: 'SIGN' } },
      // In review.legal, legal's own ESCALATE hides review's.
      { name: 'claim.escalate', role: { kind: 'transition', machine: 'claim', states: ['review.legal'], event: 'ESCALATE' } },
      { name: 'other.submit', role: { kind: 'transition', machine: 'other', states: ['draft'], event: 'SUBMIT' } },
    ]);
    const named = graphNodes(root).flatMap((node) =>
      node.edges
        .filter((edge) => firing.has(edge))
        .map((edge) => `${pathOf(node).join('.')} ${edge.event}: ${firing.get(edge)!.join(', ')}`),
    );
    expect(named).toEqual([
      'draft SUBMIT: claim.submit',
      'review.legal SIGN: claim.sign',
      'review.legal ESCALATE: claim.escalate',
      'review.finance SIGN: claim.sign',
    ]);
  });
});
