import { startEmbeddedSut } from '../support/layouts';
import { describeA2aEndToEnd } from './suite';

describeA2aEndToEnd('embedded', () => startEmbeddedSut());
