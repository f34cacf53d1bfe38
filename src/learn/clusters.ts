// sklearn.cluster as learn's namespace `learn.cluster`: KMeans (./cluster.ts)
// and MiniBatchKMeans (./minibatch.ts), their public names only.

export { KMeans, type KMeansOptions } from './cluster.js';
export { MiniBatchKMeans, type MiniBatchKMeansOptions } from './minibatch.js';
