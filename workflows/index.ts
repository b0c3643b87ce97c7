/** The workflow bundle's entry point: every workflow type the worker runs is exported here. */
export { pingWorkflow } from './ping';
