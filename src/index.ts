// kafkasim's public library API. Everything a scenario can do, this API can do, and the reverse.
export * from './sim/index.ts';
