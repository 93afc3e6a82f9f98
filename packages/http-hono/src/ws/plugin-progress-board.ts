/** Progress of one plugin operation as a plugin system reports it; the shape is the plugin system's. */
export type PluginProgress = Record<string, unknown> & { plugin_id: string };

/**
 * The port a plugin system publishes progress through; WebSocket subscribers of
 * domain plugin_progress get a snapshot of the latest entries, then every update.
 */
export class PluginProgressBoard {
  private readonly latest = new Map<string, PluginProgress>();
  private readonly listeners = new Set<(progress: PluginProgress) => void>();

  constructor(private readonly capacity = 200) {}

  publish(progress: PluginProgress): void {
    this.latest.delete(progress.plugin_id);
    this.latest.set(progress.plugin_id, progress);
    if (this.latest.size > this.capacity) this.latest.delete(this.latest.keys().next().value as string);
    for (const listener of this.listeners) listener(progress);
  }

  snapshot(): PluginProgress[] {
    return [...this.latest.values()];
  }

  subscribe(listener: (progress: PluginProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
