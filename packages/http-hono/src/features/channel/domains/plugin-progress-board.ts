/** One plugin operation's progress, as the existing dashboard reads `data.progress` (one object, never a list). */
export interface PluginProgress {
  operation: 'idle' | 'fetch' | 'install' | 'uninstall' | 'update';
  stage: 'idle' | 'loading' | 'success' | 'error';
  /** 0 to 100. */
  progress: number;
  message: string;
  error: string | null;
  plugin_id: string | null;
  total_plugins: number;
  loaded_plugins: number;
  mirror_id?: string;
  mirror_name?: string;
  mirror_index?: number;
  total_mirrors?: number;
  attempt?: number;
  max_attempts?: number;
}

/** What subscribers see when no plugin operation runs. */
export const IDLE_PROGRESS: Readonly<PluginProgress> = Object.freeze({
  operation: 'idle',
  stage: 'idle',
  progress: 0,
  message: '',
  error: null,
  plugin_id: null,
  total_plugins: 0,
  loaded_plugins: 0,
});

/**
 * The port a plugin system publishes progress through; WebSocket subscribers of domain
 * plugin_progress get the current progress as a snapshot, then every update.
 */
export class PluginProgressBoard {
  private current: PluginProgress = { ...IDLE_PROGRESS };
  private readonly listeners = new Set<(progress: PluginProgress) => void>();

  publish(progress: PluginProgress): void {
    this.current = { ...progress };
    for (const listener of this.listeners) listener(this.current);
  }

  /** The latest progress, idle until a plugin system publishes. */
  snapshot(): PluginProgress {
    return { ...this.current };
  }

  subscribe(listener: (progress: PluginProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
