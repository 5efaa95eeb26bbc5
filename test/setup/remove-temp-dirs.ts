// Every test file: the folders made with tempDir() are removed after its last test.
import { removeTempDirs } from '../helpers/temp-dir.js';

afterAll(removeTempDirs);
