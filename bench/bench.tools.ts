import { Injectable } from '@nestjs/common';
import { BindState, McpTool, McpWorkflow, McpStartWorkflow, McpArgs } from '../lib/index.js';
import { BENCH_TOOLS, docMachine, loopMachine } from './bench.machines.js';

/** The trivial unbound tool: same answer as the bare SDK server's `echo`. */
@Injectable()
export class EchoTools {
  @McpTool(BENCH_TOOLS.echo)
  echo() {
    return 'ok';
  }
}

/** The gated two-state loop: `loop.flip` only in `a`, `loop.flop` only in `b`. */
@Injectable()
@McpWorkflow(loopMachine)
export class LoopTools {
  @McpTool(BENCH_TOOLS.flip)
  @BindState('a', 'FLIP')
  flip() {
    return 'ok';
  }

  @McpTool(BENCH_TOOLS.flop)
  @BindState('b', 'FLOP')
  flop() {
    return 'ok';
  }
}

/** Handle-keyed documents: each `doc.open` adds one live handle to the calling session's menu. */
@Injectable()
@McpWorkflow(docMachine)
export class DocTools {
  @McpTool(BENCH_TOOLS.open)
  @McpStartWorkflow(docMachine)
  open() {
    return 'ok';
  }

  @McpTool(BENCH_TOOLS.edit)
  @BindState('draft')
  edit(@McpArgs('docId') docId: string) {
    return docId;
  }

  @McpTool(BENCH_TOOLS.publish)
  @BindState('draft', 'PUBLISH')
  publish(@McpArgs('docId') docId: string) {
    return docId;
  }
}
