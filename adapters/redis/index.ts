export { redisBackplane, type RedisBackplane, type RedisBackplaneOptions } from './backplane.js'
