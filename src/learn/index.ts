// The scikit-learn-like namespace `learn` (tessera's `learn`, and
// `tessera/learn`): scikit-learn's modules and names over chunked tensors.
// Estimators run at once, as Mars' learn does: `await est.fit(X, y)`
// resolves to the estimator, with its fitted attributes as tensors.

export * as preprocessing from './preprocessing.js';
export * as metrics from './metrics.js';
export * as model_selection from './model_selection.js';
export * as datasets from './datasets.js';
export * as linear_model from './linear_model.js';
export { NotFittedError, type Input } from './base.js';
export * as cluster from './clusters.js';
export * as decomposition from './decomposition.js';
export * as neighbors from './neighbors.js';
