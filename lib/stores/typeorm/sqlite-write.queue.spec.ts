import { SqliteWriteQueue } from './sqlite-write.queue.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SqliteWriteQueue', () => {
  it('runs work one at a time, in the order it was queued', async () => {
    const queue = new SqliteWriteQueue();
    const events: string[] = [];
    let running = 0;
    const work = (name: string) => async () => {
      running += 1;
      expect(running).toBe(1);
      events.push(`start ${name}`);
      await tick();
      events.push(`end ${name}`);
      running -= 1;
      return name;
    };
    const results = await Promise.all(['a', 'b', 'c'].map((name) => queue.run(work(name))));
    expect(results).toEqual(['a', 'b', 'c']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('hands the turn on when work fails, and a turn ended twice ends once', async () => {
    const queue = new SqliteWriteQueue();
    await expect(queue.run(() => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    const release = await queue.acquire();
    let second = false;
    const next = queue.acquire().then((end) => {
      second = true;
      return end;
    });
    await tick();
    expect(second).toBe(false);
    release();
    release();
    const end = await next;
    expect(second).toBe(true);
    let third = false;
    const after = queue.acquire().then(() => (third = true));
    await tick();
    expect(third).toBe(false);
    end();
    await after;
    expect(third).toBe(true);
  });

  it('lets a waiter whose signal aborts leave the line with its reason, and hands the turn to the next', async () => {
    const queue = new SqliteWriteQueue();
    const release = await queue.acquire();
    const controller = new AbortController();
    const leaving = queue.acquire(controller.signal);
    let next = false;
    const staying = queue.acquire().then((end) => {
      next = true;
      return end;
    });
    controller.abort(new Error('timed out'));
    await expect(leaving).rejects.toThrow('timed out');
    await expect(queue.acquire(controller.signal)).rejects.toThrow('timed out');
    release();
    (await staying)();
    expect(next).toBe(true);
    const free = await queue.acquire();
    free();
  });
});
