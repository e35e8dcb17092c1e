/**
 * `@switchboard/redis`: a Redis `SchemaCache` for agents that run on servers, so a fleet of
 * processes lists each MCP server's tools once (Node only; never part of a browser bundle). See
 * docs/scale.md.
 *
 * @packageDocumentation
 */
export { RedisSchemaCache, type RedisSchemaCacheOptions } from './redis-schema-cache.ts';
