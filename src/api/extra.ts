// NumPy's remaining array functions built from the core's operations:
// filled in by the functions below, exported from ./tensor.ts.
export {};
