// Colours that viewers with the common colour-vision deficiencies can tell apart: Okabe and Ito's palette
// ("Color Universal Design", https://jfly.uni-koeln.de/color/). Every coloured thing also carries a text label
// (a broker id, a state word), so colour is never the only cue.

export const OKABE_ITO = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7'];

/** The colour of a broker (partitions are coloured by their leader). */
export function brokerColour(index: number): string {
  return OKABE_ITO[((index % OKABE_ITO.length) + OKABE_ITO.length) % OKABE_ITO.length]!;
}

/** Black or white text, whichever reads better on `hex`. */
export function textOn(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const luminance = 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return luminance > 140 ? '#000' : '#fff';
}

export const STATE_COLOURS = {
  up: '#009E73',
  fenced: '#E69F00',
  down: '#D55E00',
  slow: '#CC79A7',
  idle: '#999999',
} as const;
