import { requireRecord, type RecordEditor } from './tokens/record-editor.js';

/** The first-setup flag a setup wizard follows (the specification's "First setup" table). */
export class SetupState {
  constructor(private readonly editor: RecordEditor) {}

  async isFirstSetup(): Promise<boolean> {
    return !(await this.editor.read()).firstSetupCompleted;
  }

  /** Marks first setup done; returns the new `is_first_setup` (false). */
  complete(): Promise<boolean> {
    return this.setCompleted(true);
  }

  /** Opens the wizard again (migration, debugging); returns the new `is_first_setup` (true). */
  reset(): Promise<boolean> {
    return this.setCompleted(false);
  }

  private setCompleted(completed: boolean): Promise<boolean> {
    return this.editor.edit((current) => {
      const record = requireRecord(current);
      return { next: record.firstSetupCompleted === completed ? null : { ...record, firstSetupCompleted: completed }, result: !completed };
    });
  }
}
