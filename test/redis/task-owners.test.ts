/**
 * A task in Redis is its creator's alone, on every instance: two fetch handlers in this process share one
 * Redis task store and tell principals apart by a header. To anyone else the task does not exist.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { redisTaskStore } from '../../adapters/redis/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { bearerAuth, createFetchHandler, tasks } from '../../src/index.js'
import { REDIS_URL } from '../helpers/redis.js'
import { as, namedUsers } from '../helpers/auth.js'
import { TEST_SECRET } from '../helpers/server.js'
import { taskClient } from '../helpers/tasks.js'

const store = redisTaskStore({ url: REDIS_URL, prefix: `test-${crypto.randomUUID()}:` })
const instance = () => createFetchHandler(createEverythingServer(), {
  requestState: { secret: TEST_SECRET },
  extensions: [tasks({ store })],
  auth: bearerAuth(namedUsers()),
})
const one = instance()
const two = instance()
afterAll(async () => {
  await Promise.all([one.close(), two.close()])
  await store.close()
})

/** What an error says, with the task id it names replaced, so answers for two ids can be compared. */
const anonymised = (body: { error?: { message: string } }, id: string) =>
  body.error && { ...body.error, message: body.error.message.replaceAll(id, '<id>') }

describe('task owners across instances sharing Redis', () => {
  it('answers another principal as if the task did not exist, and leaves the task as it was', async () => {
    const alice = taskClient(one, as('alice'))
    const id = await alice.start('confirm_delete', { filename: 'secret.txt' })
    const waiting = await alice.waitFor(id, ['input_required'])

    const bob = taskClient(two, as('bob'))
    const unknown = 'AAAAAAAAAAAAAAAAAAAAAA' // the shape of a task id, never made
    const ask = {
      get: (t: string) => bob.get(t),
      update: (t: string) => bob.update(t, { confirm: { action: 'accept', content: { confirm: true } } }),
      cancel: (t: string) => bob.cancel(t),
    }
    for (const [method, send] of Object.entries(ask)) {
      const theirs = await send(id)
      expect(theirs.result, method).toBeUndefined()
      expect(theirs.error?.code, method).toBe(-32602)
      expect(anonymised(theirs, id), method).toEqual(anonymised(await send(unknown), unknown))
    }

    // Neither bob's answer nor his cancel took: the owner, on the other instance, still finds it waiting.
    const { _meta: _, ...now } = (await taskClient(two, as('alice')).get(id)).result!
    const { _meta: __, ...before } = waiting
    expect(now).toEqual(before)
  })
})
