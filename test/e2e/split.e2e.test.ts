import { startSplitSut } from '../support/layouts';
import { describeA2aEndToEnd } from './suite';

describeA2aEndToEnd('split', () => startSplitSut());
