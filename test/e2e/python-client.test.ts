import { startEmbeddedSut } from '../support/layouts';
import { describePythonClient } from './python-client-suite';

describePythonClient('embedded', () => startEmbeddedSut());
