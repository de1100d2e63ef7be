export { redisBackplane, type RedisBackplane, type RedisBackplaneOptions } from './backplane.js'
export { redisTaskStore, type RedisTaskStoreOptions } from './tasks.js'
export { redisUsedStates, type RedisUsedStatesOptions } from './used-states.js'
export { redisSharedSecret, type RedisSharedSecretOptions } from './secret.js'
