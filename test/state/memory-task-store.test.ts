import { memoryTaskStore } from '../../src/index.js'
import { describeTaskListing, describeTaskStore } from '../helpers/task-store.js'

const store = memoryTaskStore({ sweepMs: 50 })
describeTaskStore('memory', () => store)
describeTaskListing('memory', () => store)
