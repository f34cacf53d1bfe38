// Searching, counting and sets (NumPy's searchsorted, histogram, isin, ...):
// filled in by the functions below, exported from ./tensor.ts.
export {};
