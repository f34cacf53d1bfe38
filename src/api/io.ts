// Reading and writing arrays in NumPy's file formats: filled in below,
// exported from ./tensor.ts.
export {};
