// NumPy's text form of arrays: filled in below, exported from ./tensor.ts.
export {};
