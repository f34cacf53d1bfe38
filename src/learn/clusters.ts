// sklearn.cluster as learn's namespace `learn.cluster`: KMeans (./cluster.ts)
// (and kmeans_plusplus) and MiniBatchKMeans (./minibatch.ts), their public names only.

export { KMeans, type KMeansOptions, kmeans_plusplus } from './cluster.js';
export { MiniBatchKMeans, type MiniBatchKMeansOptions } from './minibatch.js';
