import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { DataSource } from 'typeorm';
import { WORKFLOW_TASK_RESULTS, type WorkflowTaskResults } from '../../lib/extend.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { createMcpTaskMigration, TypeOrmMcpTaskStore } from '../../lib/typeorm.js';
import { HELD_MESSAGE, tasksModule } from '../fixtures/tasks.app.js';
import { databaseTargets, uniqueSuffix, type DatabaseTarget } from '../utils/databases.js';
import { dropMigrated, openMigrated } from '../utils/migrated-data-source.js';
import { eventually } from '../utils/http-client.js';

describe.each(databaseTargets('tasks on a shared TypeOrmMcpTaskStore'))(
  'a task that waits, on two apps sharing $name',
  (target: DatabaseTarget) => {
    const tableName = `mcp_task_${uniqueSuffix()}_${randomBytes(3).toString('hex')}`;
    let dataSource: DataSource;
    let apps: INestApplication[];
    let clients: Client[];

    const start = async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [tasksModule({ tasks: { store: new TypeOrmMcpTaskStore(dataSource, { tableName }), pollIntervalMs: 50 } })],
      }).compile();
      const app = moduleRef.createNestApplication();
      await app.init();
      apps.push(app);
      return app;
    };
    const connect = async (app: INestApplication) => {
      const client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
      clients.push(client);
      return client;
    };

    beforeAll(async () => {
      dataSource = await openMigrated(target.options(), [createMcpTaskMigration({ tableName })], `${tableName}_migrations`);
    }, 60_000);

    afterAll(() => dropMigrated(dataSource), 60_000);

    beforeEach(() => {
      apps = [];
      clients = [];
    });

    afterEach(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
      await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
    });

    it('stays working after its app is gone, is settled by the other app, and its requester reads it there', async () => {
      const first = await start();
      const second = await start();
      const alice = await connect(first);
      const { jobId } = (await alice.callTool({ name: 'job.create', arguments: {} })).structuredContent as { jobId: string };
      const { task } = await alice.request(
        { method: 'tools/call', params: { name: 'job.hold', arguments: { jobId }, task: {} } },
        CreateTaskResultSchema,
      );
      await eventually(async () => (await alice.experimental.tasks.getTask(task.taskId)).statusMessage === HELD_MESSAGE, 5_000);
      await first.close();

      const again = await connect(second);
      expect(await again.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working', statusMessage: HELD_MESSAGE });
      const waiting = again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      await second.get<WorkflowTaskResults>(WORKFLOW_TASK_RESULTS).settle(task.taskId, {
        content: [{ type: 'text', text: 'DECLINED: released by nobody' }],
        isError: true,
      });
      expect(await waiting).toMatchObject({ isError: true, content: [{ type: 'text', text: 'DECLINED: released by nobody' }] });
      const done = await again.experimental.tasks.getTask(task.taskId);
      expect(done.status).toBe('completed');
      expect(done.statusMessage).toBeUndefined();
    }, 30_000);
  },
);
