import { memoryTaskStore } from '../../src/index.js'
import { describeTaskStore } from '../helpers/task-store.js'

const store = memoryTaskStore({ sweepMs: 50 })
describeTaskStore('memory', () => store)
