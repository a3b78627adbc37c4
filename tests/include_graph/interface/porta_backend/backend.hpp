// Fixture: the interface, which includes nothing of src/ or backends/.
#pragma once
