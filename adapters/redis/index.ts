export { redisBackplane, type RedisBackplane, type RedisBackplaneOptions } from './backplane.js'
export { redisTaskStore, type RedisTaskStoreOptions } from './tasks.js'
