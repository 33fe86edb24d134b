/**
 * Seeded randomness for the simulator. Two kinds: `hashUnit(seed, i, salt)` is a pure function of its
 * inputs, so any sale can be derived on its own without generating the ones before it; `SeededRandom` is a
 * sequence (for fault injection, where the order of requests is what is replayed).
 */

/** A 32-bit avalanche mix (the finaliser of MurmurHash3): nearby inputs give unrelated outputs. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uint32 that depends on (seed, index, salt) only. Index may exceed 2^32 (split into two words). */
export function hash32(seed: number, index: number, salt: number): number {
  const low = index >>> 0;
  const high = Math.floor(index / 0x1_0000_0000) >>> 0;
  let h = mix32((seed >>> 0) ^ 0x9e3779b9);
  h = mix32(h ^ low);
  h = mix32(h ^ Math.imul(high + 1, 0x27d4eb2f));
  return mix32(h ^ Math.imul(salt + 1, 0x165667b1));
}

/** A number in [0, 1) that depends on (seed, index, salt) only. */
export function hashUnit(seed: number, index: number, salt: number): number {
  return hash32(seed, index, salt) / 0x1_0000_0000;
}

/** A deterministic sequence of numbers in [0, 1) (mulberry32). */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = mix32(seed >>> 0) || 0x6d2b79f5;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  }
}
